import Foundation
import Testing
import TestSupport

/// `serve --config FILE` and `callgate config check FILE` with the real executable: a good file
/// is ok, and every file that is not is refused with one line per problem naming the key (or the
/// reason the file cannot be read), however hostile it is.
@Suite("Config files")
struct ConfigFileTests {
    static let example = ProtoChecker.repositoryRoot.appendingPathComponent("deploy/config/callgate.example.yaml")

    @Test func theExampleNamesEveryOptionPassesCheckAndHasRightValuesUncommented() async throws {
        let text = try String(contentsOf: Self.example, encoding: .utf8)
        let keys = Set(text.split(separator: "\n").compactMap { line -> String? in
            let body = line.hasPrefix("# ") ? line.dropFirst(2) : line[...]
            guard let colon = body.firstIndex(of: ":"), body[..<colon].allSatisfy({ $0.isLowercase || $0 == "-" }),
                  !body[..<colon].isEmpty
            else { return nil }
            return String(body[..<colon])
        })
        #expect(keys == Set(try await ServeSettingsCoverageTests.settingNames()))

        let asIs = try await CallgateRun.run(["config", "check", Self.example.path])
        #expect(asIs.exitCode == 0 && asIs.standardOutput == "ok\n", "\(asIs)")

        let directory = try TemporaryDirectory()
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard line.hasPrefix("# "), let colon = line.firstIndex(of: ":"),
                  keys.contains(String(line.dropFirst(2)[..<colon]))
            else { return String(line) }
            return String(line.dropFirst(2))
        }.joined(separator: "\n")
        let everything = directory.path("everything.yaml")
        try uncommented.write(toFile: everything, atomically: true, encoding: .utf8)
        // Every value is of its type and in range (no "file:line" problem); together they are no
        // deployment (a cluster beside an SQLite file, key files of another machine), which the
        // check of combinations says.
        let all = try await CallgateRun.run(["config", "check", everything])
        #expect(all.exitCode == 1 && !all.standardError.contains("everything.yaml:"), "\(all)")
        #expect(all.standardError.contains("cluster mode keeps calls in PostgreSQL"), "\(all)")
    }

    /// A file, and what `config check` must say of it (one line each, in this order).
    static let refusedFiles: [(name: String, text: String, problems: [String])] = [
        ("typo.yaml", "port: 8080\nmax-device-per-user: 5\n", ["typo.yaml:2: unknown key 'max-device-per-user'; did you mean 'max-devices-per-user'?"]),
        ("nested.yaml", "limits:\n  max-devices-per-user: 5\n", ["nested.yaml:1: unknown key 'limits'"]),
        ("camel.json", #"{"maxDevicesPerUser": 5}"#, ["camel.json:1: unknown key 'maxDevicesPerUser'; did you mean 'max-devices-per-user'?"]),
        ("types.yaml", "port: abc\nmax-devices-per-user: 0\nweb-app: maybe\n", [
            "types.yaml:1: port must be an integer, got 'abc'", "types.yaml:3: web-app must be on or off, got 'maybe'",
            "types.yaml:2: max-devices-per-user must be at least 1, got 0",
        ]),
        ("types.json", #"{"port": true, "web-app": 1, "host": 5}"#, [
            "types.json:1: port must be an integer, not true", "types.json:1: host must be text, not 5",
            "types.json:1: web-app must be on or off, not 1",
        ]),
        ("shape.yaml", "trusted-proxy: 127.0.0.1/32\nport: [1, 2]\nhost:\n", [
            "shape.yaml:1: trusted-proxy must be a list of texts, not a single value (write a list: [a, b])",
            "shape.yaml:2: port must be an integer, not a list",
            "shape.yaml:3: host must be text, not empty (leave the key out for the default)",
        ]),
        ("repeated.yaml", "port: 1\nport: 2\n", ["repeated.yaml: line 1: a key is repeated: 'port'"]),
        ("repeated.json", "{\"port\": 1,\n \"port\": 2}", ["repeated.json: line 2: a key is repeated: 'port'"]),
        ("list.yaml", "- port\n", ["list.yaml: the file must be a mapping of keys to values"]),
        ("settings.toml", "port = 1\n", ["settings.toml: a config file ends in .yaml, .yml or .json"]),
    ]

    /// Values that are each right but do not go together are refused as `serve` refuses them,
    /// with the file and the `CALLGATE_` variables set now; the database is not opened.
    @Test func optionsThatDoNotGoTogetherAreRefusedAsServeRefusesThem() async throws {
        let directory = try TemporaryDirectory()
        let cluster = directory.path("cluster.yaml")
        try "cluster: redis://127.0.0.1:6379\nnode-id: a\n".write(toFile: cluster, atomically: true, encoding: .utf8)
        let alone = try await CallgateRun.run(["config", "check", cluster])
        #expect(alone.exitCode == 1 && alone.standardError.contains("cluster mode keeps calls in PostgreSQL"), "\(alone)")
        let withDatabase = try await CallgateRun.run(["config", "check", cluster], environment: [
            "CALLGATE_DATABASE": "postgres://callgate@127.0.0.1:1/nowhere", "CALLGATE_JWT_SECRET": String(repeating: "j", count: 40),
            "CALLGATE_CLUSTER_SECRET": String(repeating: "c", count: 40),
        ])
        #expect(withDatabase.exitCode == 0 && withDatabase.standardOutput == "ok\n", "nothing is opened: \(withDatabase)")

        let tls = directory.path("tls.yaml")
        try "tls-cert: \(cluster)\n".write(toFile: tls, atomically: true, encoding: .utf8)
        let half = try await CallgateRun.run(["config", "check", tls])
        #expect(half.exitCode == 1 && half.standardError.contains("tls-cert and tls-key"), "\(half)")
        try "tls-cert: \(cluster)\ntls-key: \(directory.path("missing.pem"))\n".write(toFile: tls, atomically: true, encoding: .utf8)
        let missing = try await CallgateRun.run(["config", "check", tls])
        #expect(missing.exitCode == 1 && missing.standardError.contains("cannot read \(directory.path("missing.pem"))"), "\(missing)")
    }

    @Test(arguments: refusedFiles.indices)
    func aBadFileIsRefusedNamingEachProblem(index: Int) async throws {
        let (name, text, problems) = Self.refusedFiles[index]
        let directory = try TemporaryDirectory()
        try text.write(toFile: directory.path(name), atomically: true, encoding: .utf8)
        let run = try await CallgateRun.run(["config", "check", directory.path(name)])
        #expect(run.exitCode == 1, "\(run)")
        #expect(run.standardOutput.isEmpty)
        let expected = problems.map { directory.url.path + "/" + $0 }
        #expect(run.errorLines.map(String.init).sorted() == expected.sorted(), "\(run)")
    }

    @Test func serveRefusesABadFileInOneLineBeforeItListens() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("callgate.yaml")
        try "port: 0\nmax-device-per-user: 5\nmax-queued-frames: 0\n".write(toFile: file, atomically: true, encoding: .utf8)
        let run = try await CallgateRun.run(["serve", "--config", file, "--database", directory.path("x.sqlite")])
        #expect(run.exitCode != 0)
        #expect(run.standardOutput.isEmpty, "it must not listen: \(run)")
        #expect(run.errorLines.count == 1, "\(run)")
        #expect(run.standardError.contains("\(file):2: unknown key 'max-device-per-user'"), "\(run)")
        let fromVariable = try await CallgateRun.run(
            ["serve", "--database", directory.path("x.sqlite")], environment: ["CALLGATE_CONFIG": file])
        #expect(fromVariable.standardError == run.standardError)
    }

    /// Files made to hurt: each is refused quickly, with a reason, and nothing crashes.
    @Test func hostileFilesAreRefusedWithAReason() async throws {
        let directory = try TemporaryDirectory()
        let huge = directory.path("huge.yaml")
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: huge))
        try handle.truncate(atOffset: 1 << 30)
        try handle.close()
        var aliases = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1...9 {
            aliases.append("a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]")
        }
        aliases.append("? *a9\n: 1")
        let cases: [(String, Data, String)] = [
            ("deep.yaml", Data(("port: " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8),
             "Maximum nesting level"),
            ("deep.json", Data(("{\"port\": " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}").utf8),
             "not JSON"),
            ("binary.yaml", Data([0x70, 0x6F, 0x72, 0x74, 0x3A, 0x20, 0xFF, 0xFE, 0x0A]), "not UTF-8 text"),
            ("laughs.yaml", Data(aliases.joined(separator: "\n").utf8), "still parsing after 5 s"),
        ]
        try FileManager.default.createDirectory(atPath: directory.path("folder.yaml"), withIntermediateDirectories: false)
        for (name, bytes, _) in cases {
            try bytes.write(to: URL(fileURLWithPath: directory.path(name)))
        }
        for (name, _, reason) in cases + [("huge.yaml", Data(), "a config file may have at most 1048576"),
                                          ("folder.yaml", Data(), "not a regular file"), ("missing.yaml", Data(), "cannot read it")]
        {
            let started = ContinuousClock.now
            let run = try await CallgateRun.run(["config", "check", directory.path(name)])
            #expect(run.exitCode == 1, "\(name): \(run)")
            #expect(run.errorLines.count == 1 && run.standardError.contains(reason), "\(name): \(run)")
            #expect(ContinuousClock.now - started < .seconds(30), "\(name) took too long")
        }
    }

    @Test func aFileEveryUserMayReadIsWarnedAboutWhenItHoldsASecret() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("callgate.yaml")
        try "jwt-secret: s3cret-s3cret\ndatabase: postgres://gate:pw@db/calls\n".write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let open = try await CallgateRun.run(["config", "check", file])
        #expect(open.exitCode == 0 && open.standardOutput == "ok\n", "\(open)")
        #expect(open.standardError.contains("holds secrets (jwt-secret, database)"), "\(open)")
        #expect(!open.standardError.contains("s3cret") && !open.standardError.contains("pw@"))

        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file)
        let closed = try await CallgateRun.run(["config", "check", file])
        #expect(closed.exitCode == 0 && closed.standardError.isEmpty, "\(closed)")

        // A symbolic link (as Kubernetes mounts a ConfigMap) is the file it leads to, mode included.
        let link = directory.path("link.yaml")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        let linked = try await CallgateRun.run(["config", "check", link])
        #expect(linked.exitCode == 0 && linked.standardOutput == "ok\n" && linked.standardError.isEmpty, "\(linked)")
    }
}
