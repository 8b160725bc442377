/// This build of the gateway: `callgate --version` prints it, and `callgate_build_info` carries
/// it with the wire protocol it speaks. Raised with each release.
public enum GatewayVersion {
    /// The release.
    public static let release = "0.3.0"
}
