// yt-gst — the control service's options: `stream --control ...` (the hub) and `receive --name ...` (a room).
import AppSrcFeeder
import Control
import Glibc

extension OptionSpec {
    static let control = OptionSpec(
        name: "control", valueName: "[ADDR:]PORT", optionalEndpoint: true,
        help: "Serve Snapcast's control API (JSON-RPC on TCP PORT, default 1705; a web page on PORT + 75) for "
            + "phones, Home Assistant and the rooms (receivers) of this stream.")
    static let controlToken = OptionSpec(
        name: "control-token", valueName: "FILE",
        help: "The token (FILE's first line; or $YT_GST_CONTROL_TOKEN) that --control's changes need, and that a "
            + "room sends.")
    static let controlOpen = OptionSpec(
        name: "control-open", help: "Without a token, let other machines use --control (default: this one only).")
    static let controlReadOpen = OptionSpec(
        name: "control-read-open", help: "With a token, let anyone read the rooms' state without it.")
    static let roomName = OptionSpec(
        name: "name", valueName: "NAME",
        help: "This room's name at the sender's control service (default: the host name); its settings are kept "
            + "per name.")
    static let controlPort = OptionSpec(
        name: "control-port", valueName: "PORT", help: "The sender's control port to register with (default 1705).")
    static let noControl = OptionSpec(name: "no-control", help: "Do not register with the sender's control service.")
}

/// The token of `--control-token FILE`, else of `$YT_GST_CONTROL_TOKEN`; nil when neither is given.
func controlToken(_ arguments: ParsedArguments) throws(UsageError) -> String? {
    guard let path = arguments.value("control-token") else {
        return FileSystem.environment("YT_GST_CONTROL_TOKEN").flatMap { $0.isEmpty ? nil : $0 }
    }
    guard let text = FileSystem.readText(path, limit: 4096) else {
        throw UsageError("--control-token \(path): \(String(cString: strerror(errno)))")
    }
    let firstLine = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first ?? ""
    let token = String(firstLine).trimmingWhitespace
    guard !token.isEmpty else { throw UsageError("--control-token \(path): the file's first line is empty") }
    return token
}

/// `stream --control[=[ADDR:]PORT] --control-token FILE --control-open --control-read-open`, checked.
struct HubOptions: Equatable {
    static let defaultPort = 1705
    /// Snapcast's pair: the web page's port is the JSON-RPC port + 75 (1705 → 1780).
    static let webPortOffset = 75

    var address: String
    var port: Int
    var access: HubService.Access

    /// nil without --control (then its companions are usage errors).
    init?(_ arguments: ParsedArguments) throws(UsageError) {
        let companions = ["control-token", "control-open", "control-read-open"].filter {
            arguments.flags.contains($0) || arguments.value($0) != nil
        }
        guard arguments.flags.contains("control") else {
            if let first = companions.first { throw UsageError("--\(first) goes with --control") }
            return nil
        }
        let token = try controlToken(arguments)
        let open = arguments.flags.contains("control-open")
        let readOpen = arguments.flags.contains("control-read-open")
        if readOpen && token == nil { throw UsageError("--control-read-open needs --control-token") }
        let (given, port) = try Self.endpoint(arguments.value("control"))
        let everyone = token != nil || open
        if let given, !everyone && !Self.isLoopback(given) {
            throw UsageError(
                "--control \(given):\(port) without --control-token lets anyone there steer the rooms: add "
                    + "--control-token FILE (or --control-open)")
        }
        address = given ?? (everyone ? "0.0.0.0" : "127.0.0.1")
        self.port = port
        access = HubService.Access(token: token, readOpen: readOpen, open: open)
    }

    var webPort: Int { port + Self.webPortOffset }

    /// `PORT`, `ADDR:PORT` or `[IPv6]:PORT` (nil: the default port on the default address).
    static func endpoint(_ text: String?) throws(UsageError) -> (String?, Int) {
        guard let text else { return (nil, defaultPort) }
        let problem = UsageError("--control must be PORT or ADDR:PORT with a numeric IP address, not \"\(text)\"")
        let colon = text.lastIndex(of: ":")
        var address = colon.map { String(text[..<$0]) }
        if let bracketed = address, bracketed.hasPrefix("["), bracketed.hasSuffix("]") {
            address = String(bracketed.dropFirst().dropLast())
        }
        guard let port = Int(colon.map { String(text[text.index(after: $0)...]) } ?? text) else { throw problem }
        guard (1...65_535 - webPortOffset).contains(port) else {
            throw UsageError("--control's port must be from 1 to \(65_535 - webPortOffset), not \(port)")
        }
        if let address, !isIPAddress(address) { throw problem }
        return (address, port)
    }

    static func isIPAddress(_ text: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }

    static func isLoopback(_ address: String) -> Bool { address.hasPrefix("127.") || address == "::1" }
}

/// `receive --name NAME --control-port PORT --no-control --control-token FILE`, checked.
struct RoomOptions: Equatable {
    /// nil: the default room (named after the host).
    var name: String?
    var port: Int
    var token: String?

    /// nil with --no-control (then its companions are usage errors).
    init?(_ arguments: ParsedArguments) throws(UsageError) {
        if arguments.flags.contains("no-control") {
            if let other = ["name", "control-port", "control-token"].first(where: { arguments.value($0) != nil }) {
                throw UsageError("--\(other) registers with the sender's control service; --no-control does not")
            }
            return nil
        }
        name = arguments.value("name")
        if let name, name.trimmingWhitespace.isEmpty || name.count > 64 || name.contains(where: \.isNewline) {
            throw UsageError("--name must be 1 to 64 characters on one line, not \"\(name)\"")
        }
        port = try arguments.integer("control-port", in: 1...65_535) ?? HubOptions.defaultPort
        token = try controlToken(arguments)
    }
}
