# The doppel stub server in an image, for teams who do not build Swift (issue 49, point 2).
#   docker build -t doppel .
#   docker run --rm -p 127.0.0.1:8080:8080 -v "$PWD:/stubs:ro" doppel
# The stub files (a manifest, fixture folders, .har cassettes, OpenAPI documents, GraphQL
# schemas) are mounted at /stubs; the default command serves that folder on port 8080.
# Inside the container the server listens on 0.0.0.0 (--allow-remote), so publish the port on the
# host's loopback only (-p 127.0.0.1:8080:8080), as every documented command does. The admin API
# is then off unless a token is given: -e DOPPEL_ADMIN_TOKEN=… (or --admin-token-file on a
# mounted secret) turns it on, and requests to it must send Authorization: Bearer <token>.
# The run stage's steps are the ones .ci/release-check runs in a debootstrapped Debian folder.

# Build: Scripts/release (every trait, release mode, static Swift standard library).
FROM swift:6.3-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libcurl4-openssl-dev \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN Scripts/release && mkdir /out && tar -C /out --strip-components=1 -xzf dist/doppel-*-linux-*.tar.gz

# Run: a slim Debian with the one system package the binary needs, as a user without privileges.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libcurl4 \
  && rm -rf /var/lib/apt/lists/* \
  && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin doppel \
  && mkdir /stubs
COPY --from=build /out/doppel /usr/local/bin/doppel
WORKDIR /stubs
USER doppel
EXPOSE 8080
ENTRYPOINT ["doppel"]
CMD ["serve", "/stubs", "--host", "0.0.0.0", "--allow-remote", "--port", "8080"]
