// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "CallGate",
    // CallGateKit and CallGateProtocol are for apps on iOS 16+, macOS 13+ and Linux; the gateway,
    // its LWS test client and the bench are built and run on Linux.
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .executable(name: "callgate", targets: ["callgate"]),
        .executable(name: "callgate-bench", targets: ["callgate-bench"]),
        .library(name: "CallGateKit", targets: ["CallGateKit"]),
        .library(name: "CallGateProtocol", targets: ["CallGateProtocol"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.1.0"..<"6.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // `serve --config`: the environment and a YAML or JSON file (YAML through Yams).
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: [.defaults, "YAML"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev", "libwebsockets-evlib-ev", "libev-dev"])]
        ),
        .target(name: "LWS", dependencies: ["CLibWebSockets"]),
        // No pkgConfig: hiredis.pc only adds -I/usr/include/hiredis (the shim includes <hiredis/...>)
        // and -D_FILE_OFFSET_BITS=64, a flag SwiftPM refuses with a warning on every build.
        .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
        .target(
            name: "CallGateCluster",
            dependencies: [
                "CHiredis", "LWS", .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"), .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The Lua scripts Redis runs (ClusterScripts), compiled into the binary.
            resources: [
                .embedInCode("Scripts/adoptUser.lua"),
                .embedInCode("Scripts/appendPush.lua"),
                .embedInCode("Scripts/claimCall.lua"),
                .embedInCode("Scripts/claimDevice.lua"),
                .embedInCode("Scripts/claimTakeover.lua"),
                .embedInCode("Scripts/claimUser.lua"),
                .embedInCode("Scripts/forget.lua"),
                .embedInCode("Scripts/heartbeat.lua"),
                .embedInCode("Scripts/leave.lua"),
                .embedInCode("Scripts/noteClaimed.lua"),
                .embedInCode("Scripts/readPushes.lua"),
                .embedInCode("Scripts/release.lua"),
                .embedInCode("Scripts/releaseUser.lua"),
                .embedInCode("Scripts/renewUsers.lua"),
                .embedInCode("Scripts/readSequences.lua"),
                .embedInCode("Scripts/spendStart.lua"),
                .embedInCode("Scripts/writePresence.lua"),
            ]
        ),
        .target(name: "CallGateProtocol"),
        .target(
            name: "CallGateCore",
            dependencies: [
                "CallGateProtocol", .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "CallGateStoreSQLite",
            dependencies: ["CallGateCore", "CallGateProtocol", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "CallGateStorePostgres",
            dependencies: [
                "CallGateCore", "CallGateProtocol",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "CallGateServer",
            dependencies: [
                "LWS", "CallGateCore", "CallGateProtocol", "CallGateCluster",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            resources: [
                .embedInCode("WebApp/index.html"), .embedInCode("WebApp/app.js"),
                .embedInCode("WebApp/callgate.js"), .embedInCode("WebApp/style.css"),
            ]
        ),
        .target(
            name: "CallGateClient",
            dependencies: ["LWS", "CallGateProtocol", .product(name: "Logging", package: "swift-log")]
        ),
        // The SDK apps ship: Swift NIO's WebSocket client (NIOPosix on Linux, Network.framework on
        // Apple's systems), no C system library.
        .target(
            name: "CallGateKit",
            dependencies: [
                "CallGateProtocol", .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"), .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(name: "CallGateConsole", dependencies: ["CallGateKit", "CallGateProtocol"]),
        .target(
            name: "CallGateBench",
            dependencies: [
                "LWS", "CallGateProtocol",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        .executableTarget(
            name: "callgate-bench",
            dependencies: ["CallGateBench", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "callgate",
            dependencies: [
                "CallGateServer", "CallGateKit", "CallGateCore", "CallGateStoreSQLite", "CallGateStorePostgres",
                "CallGateConsole", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                // `callgate healthcheck`, the container image's probe.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
        .target(
            name: "TestSupport", dependencies: ["CallGateCore", .product(name: "JWTKit", package: "jwt-kit")],
            path: "Tests/TestSupport"
        ),
        .target(
            name: "StoreTestSupport", dependencies: ["CallGateCore", "CallGateProtocol", "TestSupport"],
            path: "Tests/StoreTestSupport"
        ),
        .testTarget(name: "LWSTests", dependencies: ["LWS", "TestSupport"]),
        .testTarget(name: "CallGateClusterTests", dependencies: ["CallGateCluster", "LWS", "TestSupport"]),
        .testTarget(name: "CallGateProtocolTests", dependencies: ["CallGateProtocol", "TestSupport"]),
        .testTarget(name: "CallGateCoreTests", dependencies: ["CallGateCore", "CallGateProtocol", "TestSupport"]),
        .testTarget(
            name: "CallGateStoreSQLiteTests",
            dependencies: [
                "CallGateStoreSQLite", "CallGateCore", "CallGateProtocol", "TestSupport", "StoreTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "CallGateStorePostgresTests",
            dependencies: [
                "CallGateStorePostgres", "CallGateCore", "CallGateProtocol", "TestSupport", "StoreTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "CallGateServerTests",
            dependencies: [
                "CallGateServer", "CallGateCore", "CallGateProtocol", "CallGateCluster", "CallGateStorePostgres", "LWS",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Prometheus", package: "swift-prometheus"), "TestSupport",
            ]
        ),
        .testTarget(name: "CallGateBenchTests", dependencies: ["CallGateBench"]),
        .testTarget(name: "CallGateConsoleTests", dependencies: ["CallGateConsole", "CallGateKit", "CallGateProtocol"]),
        .testTarget(name: "CallGateKitTests", dependencies: ["CallGateKit", "CallGateProtocol"]),
        // `serve`'s settings table against its flags, parsed in process.
        .testTarget(name: "CallGateCommandTests", dependencies: ["callgate"]),
        .testTarget(
            name: "CallGateIntegrationTests",
            dependencies: [
                "CallGateServer", "CallGateClient", "CallGateKit", "CallGateProtocol", "CallGateCore", "CallGateStoreSQLite",
                "CallGateStorePostgres", "CallGateBench", "CallGateConsole", "CallGateCluster", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The JWKS server of the token key tests (JWKSServer.swift).
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
