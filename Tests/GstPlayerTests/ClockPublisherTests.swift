// yt-gst — publishing a clock: a port that cannot be bound is `.portUnavailable`, not a state change.
import Glibc
import GstPlayer
import Testing

@Suite struct ClockPublisherTests {
    init() { Gst.initialize() }

    /// A UDP socket bound to a free port of every local address (without SO_REUSEPORT, so no one else can bind it),
    /// and that port.
    static func occupyUDPPort() throws -> (socket: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        try #require(bound, "bind: \(errno)")
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func aPortInUseIsPortUnavailable() throws {
        let (fd, port) = try Self.occupyUDPPort()
        defer { close(fd) }
        let error = #expect(throws: GstError.self) { try ClockPublisher(Clock.system(), port: port) }
        #expect(error?.kind == .portUnavailable)
        #expect(error?.message == "cannot publish the clock on UDP port \(port) (in use, or not allowed)")
    }

    @Test func aFreePortPublishes() throws {
        let (fd, port) = try Self.occupyUDPPort()
        close(fd)
        _ = try ClockPublisher(Clock.system(), port: port)
    }
}
