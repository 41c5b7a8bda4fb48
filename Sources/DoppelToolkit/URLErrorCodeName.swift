import Foundation

/// The `URLError` codes a manifest's `"error"` may name, by their Swift names.
package enum URLErrorCodeName {
  package static let all: [(name: String, code: URLError.Code)] = [
    ("notConnectedToInternet", .notConnectedToInternet),
    ("timedOut", .timedOut),
    ("cannotFindHost", .cannotFindHost),
    ("cannotConnectToHost", .cannotConnectToHost),
    ("networkConnectionLost", .networkConnectionLost),
    ("dnsLookupFailed", .dnsLookupFailed),
    ("cancelled", .cancelled),
    ("badURL", .badURL),
    ("unsupportedURL", .unsupportedURL),
    ("badServerResponse", .badServerResponse),
    ("cannotParseResponse", .cannotParseResponse),
    ("cannotDecodeContentData", .cannotDecodeContentData),
    ("cannotDecodeRawData", .cannotDecodeRawData),
    ("zeroByteResource", .zeroByteResource),
    ("dataLengthExceedsMaximum", .dataLengthExceedsMaximum),
    ("httpTooManyRedirects", .httpTooManyRedirects),
    ("redirectToNonExistentLocation", .redirectToNonExistentLocation),
    ("resourceUnavailable", .resourceUnavailable),
    ("userAuthenticationRequired", .userAuthenticationRequired),
    ("userCancelledAuthentication", .userCancelledAuthentication),
    ("secureConnectionFailed", .secureConnectionFailed),
    ("serverCertificateHasBadDate", .serverCertificateHasBadDate),
    ("serverCertificateUntrusted", .serverCertificateUntrusted),
    ("serverCertificateHasUnknownRoot", .serverCertificateHasUnknownRoot),
    ("serverCertificateNotYetValid", .serverCertificateNotYetValid),
    ("clientCertificateRejected", .clientCertificateRejected),
    ("clientCertificateRequired", .clientCertificateRequired),
    ("cannotLoadFromNetwork", .cannotLoadFromNetwork),
    ("internationalRoamingOff", .internationalRoamingOff),
    ("callIsActive", .callIsActive),
    ("dataNotAllowed", .dataNotAllowed),
    ("requestBodyStreamExhausted", .requestBodyStreamExhausted),
    ("appTransportSecurityRequiresSecureConnection", .appTransportSecurityRequiresSecureConnection),
  ]

  package static var names: [String] { all.map(\.name) }

  package static func code(named name: String) -> URLError.Code? {
    all.first { $0.name == name }?.code
  }
}
