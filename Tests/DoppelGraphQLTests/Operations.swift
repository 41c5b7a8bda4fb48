#if GraphQL
  /// Operations shaped like Apollo iOS's generated ones: named, `__typename` in every selection
  /// set, fragments and inline fragments, variables.
  enum Operations {
    static let viewer = """
      query Viewer($first: Int!) {
        viewer {
          __typename
          ...UserSummary
          role
          joinedAt
          age
          friends(first: $first) {
            __typename
            totalCount
            edges {
              __typename
              cursor
              node {
                __typename
                ...UserSummary
              }
            }
            pageInfo {
              __typename
              hasNextPage
              endCursor
            }
          }
        }
      }

      fragment UserSummary on User {
        __typename
        id
        displayName
        avatar
      }
      """

    static let search = """
      query Search($text: String!) {
        search(text: $text, first: 3) {
          __typename
          ... on User {
            id
            displayName
          }
          ... on Post {
            id
            author {
              __typename
              displayName
              ... on Organisation {
                members {
                  __typename
                  id
                }
              }
            }
            attachments {
              __typename
              ... on Photo { url width }
              ... on Link { url title }
            }
          }
          ... on Pet {
            id
            name
            species
          }
        }
      }
      """

    static let user = """
      query UserProfile($id: ID!) {
        user(id: $id) {
          __typename
          id
          displayName
          age
          pets {
            __typename
            name
          }
        }
      }
      """

    static let createPost = """
      mutation CreatePost($input: NewPostInput!) {
        createPost(input: $input) {
          __typename
          post { __typename id body createdAt }
          errors
        }
      }
      """

    /// GraphiQL's introspection query: GraphQL.js's `getIntrospectionQuery` with every option on.
    static let introspection = """
      query IntrospectionQuery {
        __schema {
          description
          queryType { name }
          mutationType { name }
          subscriptionType { name }
          types { ...FullType }
          directives {
            name
            description
            isRepeatable
            locations
            args(includeDeprecated: true) { ...InputValue }
          }
        }
      }

      fragment FullType on __Type {
        kind
        name
        description
        specifiedByURL
        fields(includeDeprecated: true) {
          name
          description
          args(includeDeprecated: true) { ...InputValue }
          type { ...TypeRef }
          isDeprecated
          deprecationReason
        }
        inputFields(includeDeprecated: true) { ...InputValue }
        interfaces { ...TypeRef }
        enumValues(includeDeprecated: true) {
          name
          description
          isDeprecated
          deprecationReason
        }
        possibleTypes { ...TypeRef }
      }

      fragment InputValue on __InputValue {
        name
        description
        type { ...TypeRef }
        defaultValue
        isDeprecated
        deprecationReason
      }

      fragment TypeRef on __Type {
        kind
        name
        ofType {
          kind
          name
          ofType {
            kind
            name
            ofType {
              kind
              name
              ofType {
                kind
                name
                ofType {
                  kind
                  name
                  ofType {
                    kind
                    name
                    ofType { kind name ofType { kind name } }
                  }
                }
              }
            }
          }
        }
      }
      """
  }
#endif
