// yt-gst — the tests' clients reach the servers they start on 127.0.0.1.
import Glibc

enum Loopback {
    /// connect(2) of the TCP socket `fd` to 127.0.0.1:`port` (blocking): 0, or -1 with errno set.
    static func connect(_ fd: Int32, port: Int) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }
}
