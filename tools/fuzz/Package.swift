// swift-tools-version:6.1
//
// libFuzzer targets for CallGate. Build with tools/fuzz/build.sh (or `make fuzz`), not with a bare
// `swift build`: the targets need `--sanitize fuzzer`, which build.sh passes.
//
// The main package exports only `callgate`, `callgate-bench` and `CallGateClient`, so the modules
// under test are compiled here again from the main package's own sources: Sources/CallGateProtocol,
// CallGateCore, CallGateServer, LWS and CLibWebSockets in this directory are symlinks to
// ../../Sources/<module>. Keep their targets below in step with ../../Package.swift when the
// server's dependencies change.
import PackageDescription

/// The fuzz harnesses have no `main`: libFuzzer's runtime provides it and calls
/// `LLVMFuzzerTestOneInput`.
let harnessSettings: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "CallGateFuzz",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "frame-fuzz", targets: ["frame-fuzz"]),
        .executable(name: "query-fuzz", targets: ["query-fuzz"]),
        .executable(name: "token-fuzz", targets: ["token-fuzz"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        // Only for the token harness, which signs fuzzed headers and payloads itself (HMAC-SHA256);
        // the same range jwt-kit asks for.
        .package(url: "https://github.com/apple/swift-crypto.git", "4.1.0"..<"6.0.0"),
        // CallGateServer's webhook delivery.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        // The main package's modules, from its sources (symlinked), as in ../../Package.swift.
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev", "libwebsockets-evlib-ev", "libev-dev"])]
        ),
        .target(name: "LWS", dependencies: ["CLibWebSockets"]),
        .target(name: "CallGateProtocol"),
        .target(
            name: "CallGateCore",
            dependencies: ["CallGateProtocol", .product(name: "DequeModule", package: "swift-collections")]
        ),
        .target(
            name: "CallGateServer",
            dependencies: [
                "LWS", "CallGateCore", "CallGateProtocol",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            resources: [
                .embedInCode("WebApp/index.html"), .embedInCode("WebApp/app.js"),
                .embedInCode("WebApp/callgate.js"), .embedInCode("WebApp/style.css"),
            ]
        ),

        // What more than one harness needs.
        .target(name: "FuzzSupport"),

        // The harnesses: one libFuzzer entry point each.
        .executableTarget(name: "frame-fuzz", dependencies: ["CallGateProtocol"], swiftSettings: harnessSettings),
        .executableTarget(
            name: "query-fuzz",
            dependencies: ["CallGateServer", "CallGateCore", "CallGateProtocol", "FuzzSupport"],
            swiftSettings: harnessSettings
        ),
        .executableTarget(
            name: "token-fuzz",
            dependencies: [
                "CallGateServer", "CallGateCore", "CallGateProtocol", "FuzzSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: harnessSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
