# Homebrew formula for doppel (issue 49, point 4): the macOS universal binary of a release.
#   brew tap doppel-swift/doppel https://github.com/doppel-swift/Doppel
#   brew install doppel
# After a release, set `sha256` to the line for doppel-<version>-macos-universal.tar.gz in the
# release's SHA256SUMS; `version` is checked against Sources/DoppelCLI/Version.swift by
# FirstMinutesTests. Check it on a Mac: brew install --build-from-source ./Formula/doppel.rb &&
# brew test doppel && brew audit --strict doppel.
class Doppel < Formula
  desc "Stand-in HTTP backend: serve stubs, OpenAPI documents, GraphQL schemas and HAR files"
  homepage "https://github.com/doppel-swift/Doppel"
  version "0.2.0"
  url "https://github.com/doppel-swift/Doppel/releases/download/#{version}/doppel-#{version}-macos-universal.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"

  depends_on :macos

  def install
    bin.install "doppel"
  end

  test do
    assert_match "doppel #{version} (commit", shell_output("#{bin}/doppel --version")
    (testpath/"doppel.json").write <<~JSON
      {"stubs": [{"request": "GET /hello", "response": {"text": "hi"}}]}
    JSON
    port = free_port
    pid = spawn bin/"doppel", "serve", testpath/"doppel.json", "--port", port.to_s, "--no-watch"
    begin
      answer = nil
      50.times do
        answer = Utils.popen_read("curl", "-s", "--max-time", "2", "http://127.0.0.1:#{port}/hello")
        break if answer == "hi"

        sleep 0.1
      end
      assert_equal "hi", answer
    ensure
      Process.kill("INT", pid)
      Process.wait(pid)
    end
  end
end
