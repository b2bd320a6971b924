// yt-gst — hosts for network tests: Linux network namespaces joined by a bridge, with private addresses.
//
// Every lab has a unique name prefix ("ytn<pid>l<n>"); `close()` (or deinit) kills the processes it started, by
// PID, and deletes its namespaces (which removes the veths and the bridge). `removeStale()` deletes namespaces
// left by test processes that no longer run. Needs root, iproute2 and (for loss) nftables.
import Foundation

public struct NetworkLabError: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// One host of a lab: a network namespace with `eth0` on the lab's bridge.
public struct LabHost: Sendable {
    public let name: String
    public let namespace: String
    /// Its address in the lab's /24.
    public let address: String
    /// Its address in fd77::/64, or why it has none (the error of `ip addr add`).
    public let ipv6: Result<String, NetworkLabError>
}

public final class NetworkLab: @unchecked Sendable {
    /// Every lab of this test process shares this start; a counter makes each lab's prefix unique.
    public static let namePrefix = "ytn"
    nonisolated(unsafe) private static var counter = 0
    private static let lock = NSLock()

    public let prefix: String
    /// The /24 the hosts live in, e.g. "10.77.0".
    public let subnet: String
    public private(set) var hosts: [String: LabHost] = [:]
    private var namespaces: [String] = []
    private var processes: [Launched] = []
    private var closed = false

    public static var ipPath: String {
        ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        } ?? "ip"
    }

    /// Whether labs can be made here: root and the `ip` tool.
    public static var available: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: ipPath)
    }

    /// Creates a bridge namespace and one namespace per host name, with addresses `subnet.2`, `subnet.3`, ...
    public init(hosts names: [String], subnet: String = "10.77.0") throws {
        NetworkLab.lock.lock()
        NetworkLab.counter += 1
        prefix = "\(NetworkLab.namePrefix)\(getpid())l\(NetworkLab.counter)"
        NetworkLab.lock.unlock()
        self.subnet = subnet
        do {
            let bridge = prefix + "br"
            try addNamespace(bridge)
            try ip(["-n", bridge, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0"])
            try ip(["-n", bridge, "link", "set", "br0", "up"])
            for (index, name) in names.enumerated() {
                let namespace = prefix + name
                let address = "\(subnet).\(index + 2)"
                try addNamespace(namespace)
                try ip([
                    "-n", bridge, "link", "add", "p\(index)", "type", "veth", "peer", "name", "eth0", "netns",
                    namespace,
                ])
                try ip(["-n", bridge, "link", "set", "p\(index)", "master", "br0", "up"])
                try ip(["-n", namespace, "addr", "add", "\(address)/24", "dev", "eth0"])
                try ip(["-n", namespace, "link", "set", "eth0", "up"])
                try ip(["-n", namespace, "link", "set", "lo", "up"])
                try ip(["-n", namespace, "route", "add", "224.0.0.0/4", "dev", "eth0"])
                hosts[name] = LabHost(
                    name: name, namespace: namespace, address: address,
                    ipv6: addIPv6("fd77::\(index + 2)", in: namespace))
            }
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    public func host(_ name: String) -> LabHost { hosts[name]! }

    /// Kills every process started in the lab that still runs (by PID) and deletes the namespaces.
    public func close() {
        guard !closed else { return }
        closed = true
        for process in processes where process.isRunning { process.signal(SIGKILL) }
        for process in processes { _ = process.wait(timeout: 5) }
        for namespace in namespaces.reversed() {
            _ = try? Run.run(NetworkLab.ipPath, ["netns", "del", namespace], timeout: 10)
        }
    }

    /// Deletes namespaces of earlier test processes (prefix "ytn<pid>") whose process is gone.
    public static func removeStale() {
        for name in namespaceNames() {
            guard name.hasPrefix(namePrefix) else { continue }
            let digits = name.dropFirst(namePrefix.count).prefix(while: \.isNumber)
            guard let pid = Int32(digits), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { _ = try? Run.run(ipPath, ["netns", "del", name], timeout: 10) }
        }
    }

    /// Deletes every namespace whose name starts with `prefix` (a lab whose process was killed).
    public static func removeNamespaces(withPrefix prefix: String) {
        for name in namespaceNames() where name.hasPrefix(prefix) {
            _ = try? Run.run(ipPath, ["netns", "del", name], timeout: 10)
        }
    }

    /// The names of the network namespaces there are now (`ip netns list`).
    public static func namespaceNames() -> [String] {
        guard available, let list = try? Run.run(ipPath, ["netns", "list"], timeout: 10) else { return [] }
        return list.stdout.split(separator: "\n").map { String($0.split(separator: " ").first ?? "") }
    }

    /// Starts `executable` inside `host` (`ip netns exec` execs it, so the PID is the program's).
    public func launch(
        in host: LabHost, _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> Launched {
        let launched = try Run.launch(
            NetworkLab.ipPath, ["netns", "exec", host.namespace, executable] + arguments, environment: environment)
        processes.append(launched)
        return launched
    }

    /// Runs `executable` inside `host` to completion (or `timeout` seconds, then kills it).
    public func run(
        in host: LabHost, _ executable: String, _ arguments: [String], timeout: Double = 30
    ) throws -> RunResult {
        try launch(in: host, executable, arguments).wait(timeout: timeout)
    }

    // MARK: Faults and measurements

    /// Drops `percent` % of incoming UDP packets to `port` at random, with nftables in `host`'s namespace.
    public func dropIncoming(percent: Int, udpPort port: Int, in host: LabHost) throws {
        let nft = ["/usr/sbin/nft", "/sbin/nft"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "nft"
        for command in [
            ["add", "table", "inet", "ytloss"],
            [
                "add", "chain", "inet", "ytloss", "input", "{", "type", "filter", "hook", "input", "priority", "0", ";",
                "}",
            ],
            // Every packet that reaches the host, counted before the drop rule (see `arrivedPackets`).
            ["add", "rule", "inet", "ytloss", "input", "udp", "dport", "\(port)", "counter"],
            [
                "add", "rule", "inet", "ytloss", "input", "udp", "dport", "\(port)", "numgen", "random", "mod", "100",
                "<", "\(percent)",
                "counter", "drop",
            ],
        ] {
            let r = try run(in: host, nft, command, timeout: 10)
            guard r.status == 0 else {
                throw NetworkLabError(description: "nft \(command.joined(separator: " ")): \(r.stderr)")
            }
        }
    }

    /// Drops every incoming UDP packet sent from `port` (e.g. a clock server's answers), with nftables in `host`'s
    /// namespace.
    public func blockIncoming(fromUDPPort port: Int, in host: LabHost) throws {
        let nft = ["/usr/sbin/nft", "/sbin/nft"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "nft"
        for command in [
            ["add", "table", "inet", "ytblock"],
            [
                "add", "chain", "inet", "ytblock", "input", "{", "type", "filter", "hook", "input", "priority", "0",
                ";", "}",
            ],
            ["add", "rule", "inet", "ytblock", "input", "udp", "sport", "\(port)", "drop"],
        ] {
            let r = try run(in: host, nft, command, timeout: 10)
            guard r.status == 0 else {
                throw NetworkLabError(description: "nft \(command.joined(separator: " ")): \(r.stderr)")
            }
        }
    }

    /// Packets the `dropIncoming` rule has dropped so far.
    public func droppedPackets(in host: LabHost) throws -> Int { try lossCounter(in: host, dropRule: true) }

    /// Packets that reached `host` on the port `dropIncoming` watches, dropped or not: with the number the sender
    /// sent, what vanished on the way (the sender's socket, the bridge) before nftables saw it.
    public func arrivedPackets(in host: LabHost) throws -> Int { try lossCounter(in: host, dropRule: false) }

    private func lossCounter(in host: LabHost, dropRule: Bool) throws -> Int {
        let nft = ["/usr/sbin/nft", "/sbin/nft"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "nft"
        let r = try run(in: host, nft, ["list", "chain", "inet", "ytloss", "input"], timeout: 10)
        let rule = r.stdout.split(separator: "\n").first {
            $0.contains("counter packets ") && $0.contains("drop") == dropRule
        }
        guard let rule, let range = rule.range(of: "counter packets ") else {
            throw NetworkLabError(description: "no counter in: \(r.stdout) \(r.stderr)")
        }
        return Int(rule[range.upperBound...].prefix(while: \.isNumber)) ?? 0
    }

    /// UDP datagrams the kernel of `host` received but dropped before a socket read them (a full receive buffer on a
    /// starved machine): `InErrors` of the namespace's /proc/net/snmp, which counts `RcvbufErrors` among others.
    public func udpReceiveErrors(in host: LabHost) throws -> Int {
        let r = try run(in: host, "/bin/cat", ["/proc/net/snmp"], timeout: 10)
        let udp = r.stdout.split(separator: "\n").filter { $0.hasPrefix("Udp: ") }.map { $0.split(separator: " ") }
        guard udp.count == 2, let column = udp[0].firstIndex(of: "InErrors"), column < udp[1].count,
            let errors = Int(udp[1][column])
        else { throw NetworkLabError(description: "no UDP counters in /proc/net/snmp: \(r.stdout)") }
        return errors
    }

    /// Bytes received on `host`'s eth0 so far (all protocols, with headers).
    public func receivedBytes(in host: LabHost) throws -> Int {
        let r = try run(in: host, "/bin/cat", ["/sys/class/net/eth0/statistics/rx_bytes"], timeout: 10)
        guard let bytes = Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw NetworkLabError(description: "rx_bytes: \(r.stdout) \(r.stderr)")
        }
        return bytes
    }

    /// Runs `body` with the calling thread inside `host`'s network namespace (sockets made there stay there),
    /// then moves the thread back.
    public func withNamespace<R>(of host: LabHost, _ body: () throws -> R) throws -> R {
        typealias SetNS = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else {
            throw NetworkLabError(description: "no setns in libc")
        }
        let setns = unsafeBitCast(symbol, to: SetNS.self)
        let cloneNewNet: Int32 = 0x4000_0000
        let original = open("/proc/thread-self/ns/net", O_RDONLY)
        guard original >= 0 else { throw NetworkLabError(description: "cannot open own namespace") }
        defer { Glibc.close(original) }
        let target = open("/run/netns/\(host.namespace)", O_RDONLY)
        guard target >= 0 else { throw NetworkLabError(description: "cannot open namespace \(host.namespace)") }
        defer { Glibc.close(target) }
        guard setns(target, cloneNewNet) == 0 else { throw NetworkLabError(description: "setns: \(errno)") }
        defer { _ = setns(original, cloneNewNet) }
        return try body()
    }

    /// Adds `address`/64 to eth0 in `namespace`, first switching IPv6 on there (a host may start namespaces with
    /// `net.ipv6.conf.default.disable_ipv6=1`); without duplicate address detection, so it is usable at once.
    private func addIPv6(_ address: String, in namespace: String) -> Result<String, NetworkLabError> {
        guard FileManager.default.fileExists(atPath: "/proc/sys/net/ipv6") else {
            return .failure(NetworkLabError(description: "this kernel has no IPv6 (no /proc/sys/net/ipv6)"))
        }
        let sysctl =
            ["/usr/sbin/sysctl", "/sbin/sysctl"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "sysctl"
        do {
            for setting in ["all", "eth0"] {
                let r = try Run.run(
                    NetworkLab.ipPath,
                    ["netns", "exec", namespace, sysctl, "-qw", "net.ipv6.conf.\(setting).disable_ipv6=0"], timeout: 10)
                guard r.status == 0 else {
                    throw NetworkLabError(description: "sysctl disable_ipv6=0 in \(namespace): \(r.stderr)")
                }
            }
            try ip(["-n", namespace, "addr", "add", "\(address)/64", "dev", "eth0", "nodad"])
            return .success(address)
        } catch let error as NetworkLabError {
            return .failure(error)
        } catch {
            return .failure(NetworkLabError(description: "\(error)"))
        }
    }

    private func addNamespace(_ name: String) throws {
        try ip(["netns", "add", name])
        namespaces.append(name)
    }

    private func ip(_ arguments: [String]) throws {
        let r = try Run.run(NetworkLab.ipPath, arguments, timeout: 10)
        guard r.status == 0 else {
            throw NetworkLabError(description: "ip \(arguments.joined(separator: " ")): \(r.stderr)")
        }
    }
}
