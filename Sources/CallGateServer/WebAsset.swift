/// One file of the web softphone demo, compiled into the binary (SwiftPM `embedInCode`), so
/// the gateway serves it without reading the file system: nothing to install beside the
/// binary, and no path a request could walk out of.
struct WebAsset: Sendable {
    /// The bytes of the file.
    let bytes: [UInt8]
    /// Its `Content-Type`.
    let contentType: String

    /// The demo's files by request path; `/` is the page.
    static let byPath: [String: WebAsset] = [
        "/": WebAsset(bytes: PackageResources.index_html, contentType: "text/html; charset=utf-8"),
        "/index.html": WebAsset(bytes: PackageResources.index_html, contentType: "text/html; charset=utf-8"),
        "/app.js": WebAsset(bytes: PackageResources.app_js, contentType: "text/javascript; charset=utf-8"),
        "/callgate.js": WebAsset(bytes: PackageResources.callgate_js, contentType: "text/javascript; charset=utf-8"),
        "/style.css": WebAsset(bytes: PackageResources.style_css, contentType: "text/css; charset=utf-8"),
    ]
}
