import Configuration
import Testing

@testable import callgate

/// Every flag of `serve` hands its value to the setting of its own name: parsed as `serve`
/// parses it, and given to swift-configuration as the flags provider's value.
@Suite("serve's flags")
struct ServeFlagsTests {
    @Test(arguments: ServeSetting.all.map(\.name))
    func eachFlagGivesItsOwnSettingTheValueGiven(name: String) throws {
        let setting = try #require(ServeSetting.named(name))
        let (arguments, expected) = Self.sample(of: setting)
        let command = try ServeCommand.parse(arguments)
        let given = command.givenFlags.compactMap { setting, flag in flag.given.map { (setting.name, $0) } }
        #expect(given.map(\.0) == [name], "\(arguments) gave \(given)")
        #expect(given.first?.1 == expected)
    }

    @Test func everySettingIsPairedWithOneFlag() throws {
        let names = try ServeCommand.parse([]).givenFlags.map(\.0.name)
        #expect(names.sorted() == ServeSetting.all.map(\.name).sorted())
        #expect(Set(names).count == names.count, "a setting is paired with two flags")
    }

    @Test(arguments: ServeSetting.all.filter { if case .toggle = $0.kind { true } else { false } }.map(\.name))
    func anOnOffFlagAlsoTurnsItOff(name: String) throws {
        let command = try ServeCommand.parse(["--no-\(name)"])
        let given = command.givenFlags.compactMap { setting, flag in flag.given.map { (setting.name, $0) } }
        #expect(given.map(\.0) == [name])
        #expect(given.first?.1 == .bool(false))
    }

    @Test func theVariableIsTheNameInCapitals() throws {
        #expect(ServeSetting.maxDevicesPerUser.variable == "CALLGATE_MAX_DEVICES_PER_USER")
        #expect(ServeSetting.webApp.variable == "CALLGATE_WEB_APP")
        for setting in ServeSetting.all {
            #expect(setting.name.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }, "\(setting.name)")
        }
    }

    /// Arguments that give `setting` a value, and the value.
    private static func sample(of setting: ServeSetting) -> ([String], ConfigContent) {
        let flag = "--\(setting.name)"
        switch setting.kind {
        case .text: return ([flag, "sample"], .string("sample"))
        case .integer: return ([flag, "7"], .int(7))
        case .decimal: return ([flag, "2.5"], .double(2.5))
        case .toggle: return ([flag], .bool(true))
        case .list: return ([flag, "a", flag, "b"], .stringArray(["a", "b"]))
        case .choice(let words): return ([flag, words.last ?? ""], .string(words.last ?? ""))
        }
    }
}

/// What a setting accepts, and how a value that does not fit is told.
@Suite("serve's settings")
struct ServeSettingTests {
    @Test func aNumberOutOfRangeIsToldWithItsBounds() {
        #expect(ServeSetting.maxDevicesPerUser.problem(with: .int(0)) == "must be at least 1, got 0")
        #expect(ServeSetting.callerGraceSeconds.problem(with: .int(3601)) == "must be at most 3600, got 3601")
        #expect(ServeSetting.clusterMessageMaxAge.problem(with: .int(0)) == "must be 1 to 3600 seconds, got 0")
        #expect(ServeSetting.webhookTimeout.problem(with: .double(.infinity)) != nil)
        #expect(ServeSetting.maxDevicesPerUser.problem(with: .int(1)) == nil)
    }

    @Test func aChoiceAndATextAreChecked() {
        #expect(ServeSetting.logFormat.problem(with: .string("xml")) == "must be text or json, got 'xml'")
        #expect(ServeSetting.host.problem(with: .string("")) != nil)
        #expect(ServeSetting.host.problem(with: .string("0.0.0.0")) == nil)
    }

    @Test func aMistypedKeyIsMatchedToTheOptionItMeans() {
        #expect(ConfigFileShape.likelyName(of: "maxDevicesPerUser") == "max-devices-per-user")
        #expect(ConfigFileShape.likelyName(of: "CALLGATE_PORT") == "port")
        #expect(ConfigFileShape.likelyName(of: "max_devices_per_user") == "max-devices-per-user")
        #expect(ConfigFileShape.likelyName(of: "max-device-per-user") == "max-devices-per-user")
        #expect(ConfigFileShape.likelyName(of: "colour") == nil)
    }

    @Test func aURLPasswordIsRedactedAndNothingElse() {
        #expect(RedactedURL.redacting("postgres://gate:s3cr@t@db:5432/calls") == "postgres://gate:<redacted>@db:5432/calls")
        #expect(RedactedURL.redacting("redis://:pw@10.0.0.5:6379") == "redis://:<redacted>@10.0.0.5:6379")
        #expect(RedactedURL.redacting("postgres://gate@db/calls") == "postgres://gate@db/calls")
        #expect(RedactedURL.redacting("./callgate.sqlite") == "./callgate.sqlite")
    }
}
