@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A kind of secret the scanner finds, in words (``CassetteLint/Kind`` gives it to users).
package struct SecretKind: Sendable, Hashable, CustomStringConvertible {
  package let description: String

  static package let bearerToken = SecretKind(description: "bearer token")
  static package let basicCredentials = SecretKind(description: "basic credentials")
  static package let credentials = SecretKind(description: "credentials")
  static package let cookie = SecretKind(description: "cookie")
  static package let awsAccessKey = SecretKind(description: "AWS access key ID")
  static package let gitHubToken = SecretKind(description: "GitHub token")
  static package let slackToken = SecretKind(description: "Slack token")
  static package let googleAPIKey = SecretKind(description: "Google API key")
  static package let stripeKey = SecretKind(description: "Stripe secret key")
  static package let jsonWebToken = SecretKind(description: "JSON Web Token")
  static package let privateKey = SecretKind(description: "private key")
  static package let openAIKey = SecretKind(description: "OpenAI API key")
  static package let anthropicKey = SecretKind(description: "Anthropic API key")
  static package let gitLabToken = SecretKind(description: "GitLab token")
  static package let npmToken = SecretKind(description: "npm token")
  static package let slackWebhook = SecretKind(description: "Slack webhook")
  static package let sendGridKey = SecretKind(description: "SendGrid API key")
  static package let twilioKey = SecretKind(description: "Twilio key")
  static package let huggingFaceToken = SecretKind(description: "Hugging Face token")
  static package let shopifyToken = SecretKind(description: "Shopify token")
  static package let digitalOceanToken = SecretKind(description: "DigitalOcean token")
  static package let telegramBotToken = SecretKind(description: "Telegram bot token")
  static package let azureStorageKey = SecretKind(description: "Azure storage key")
  static package let urlPassword = SecretKind(description: "password in a URL")
  static package let unscannableBody = SecretKind(description: "body that cannot be scanned for secrets")
  static package let repeatedSecret = SecretKind(description: "a secret found elsewhere in the file, repeated")
  static package func apiKeyHeader(_ name: String) -> SecretKind { SecretKind(description: "API key header \(name)") }
  static package func secretParameter(_ name: String) -> SecretKind {
    SecretKind(description: "secret query parameter \"\(name)\"")
  }
  static package func secretJSONField(_ name: String) -> SecretKind {
    SecretKind(description: "secret JSON field \"\(name)\"")
  }
  static package func secretHTMLField(_ name: String) -> SecretKind {
    SecretKind(description: "secret HTML field \"\(name)\"")
  }
  static package func secretMultipartField(_ name: String) -> SecretKind {
    SecretKind(description: "secret multipart field \"\(name)\"")
  }
  static package func secretXMLField(_ name: String) -> SecretKind {
    SecretKind(description: "secret XML field \"\(name)\"")
  }
  static package func highEntropyValue(_ name: String) -> SecretKind {
    SecretKind(description: "high-entropy value under \"\(name)\"")
  }
  static package func secretHeader(_ name: String) -> SecretKind { SecretKind(description: "secret header \(name)") }
}
