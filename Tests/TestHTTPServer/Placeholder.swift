/// Placeholder; see TestHTTPServer.swift.
public enum TestHTTPServerPlaceholder {}
