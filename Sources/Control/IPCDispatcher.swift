// yt-gst — mpv's JSON IPC protocol between the socket's clients and a session's IPCTarget.
import GstPlayer

/// Reads requests, answers them in order, sends events and property changes, in mpv's protocol: one JSON object per
/// line, `{"command": [name, args...], "request_id": N}` → `{"data": ..., "request_id": N, "error": "success"}`.
///
/// A line that is not a JSON object is taken as an input.conf-style text command (words, as mpv does) and answered
/// too; a malformed line gets an `"invalid parameter"` reply with request id 0, and the connection stays usable.
/// - Note: Not Sendable: used on the main loop's thread only.
public final class IPCDispatcher {
    /// How often a rate-limited property (time-pos) is sent to one observation at most.
    public static let rateLimit = Duration.milliseconds(250)
    /// What the requests are about (the session's model); weak, as the target owns the dispatcher.
    public weak var target: (any IPCTarget)?
    private var server: IPCServer?
    private static let protocolCommands = [
        "get_property", "get_property_string", "set_property", "set_property_string", "observe_property",
        "observe_property_string", "unobserve_property", "client_name", "get_version", "enable_event",
        "disable_event", "request_log_messages", "set", "cycle", "add",
    ]

    public init() {}

    /// The socket's path, while it listens.
    public var path: String? { server?.path }

    /// Serves `target` at `name` (see `IPCSocketPath`) until `close()`.
    public func serve(_ target: any IPCTarget, at name: String) throws(IPCSocketError) {
        self.target = target
        server = try IPCServer(name: name) { [unowned self] in handle($0, from: $1) }
    }

    /// Sends `{"event": name, ...fields}` to every client.
    public func event(_ name: String, _ fields: [(String, JSONValue)] = []) {
        server?.broadcast(JSONValue.object([("event", .string(name))] + fields).text)
    }

    /// Sends a `property-change` for each observation whose property changed since it was last sent (rate-limited
    /// ones at most every `rateLimit`). Call it whenever the target's state may have changed.
    public func propertiesChanged() {
        guard let target else { return }
        let now = ContinuousClock.now
        for connection in server?.clients ?? [] {
            for (id, observation) in connection.observations {
                let value = target.property(observation.name)
                guard let lastSentAt = observation.lastSentAt else {
                    // A new observation starts with the current value, whatever it is.
                    sendChange(id: id, name: observation.name, value: value, to: connection, at: now)
                    continue
                }
                guard value != observation.lastSent else { continue }
                if target.rateLimitedProperties.contains(observation.name), now - lastSentAt < Self.rateLimit {
                    continue
                }
                sendChange(id: id, name: observation.name, value: value, to: connection, at: now)
            }
        }
    }

    /// The properties some client observes now.
    public var observed: Set<String> {
        Set((server?.clients ?? []).flatMap { $0.observations.values.map(\.name) })
    }

    /// Says `shutdown` to every client and closes the socket (removing its file).
    public func close() {
        event("shutdown")
        server?.close()
        server = nil
    }

    // MARK: Requests

    func handle(_ line: String, from connection: IPCConnection) {
        let trimmed = line.trimmingWhitespace
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return }
        var requestID: JSONValue = 0
        let result: Result<JSONValue?, IPCError>
        do throws(IPCError) {
            let words = try Self.command(in: trimmed, requestID: &requestID)
            result = .success(try run(words, for: connection))
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let data):
            connection.send(
                JSONValue.object([("data", data ?? .null), ("request_id", requestID), ("error", "success")]).text)
        case .failure(let error):
            connection.send(JSONValue.object([("request_id", requestID), ("error", .string(error.rawValue))]).text)
        }
        // What the command changed reaches observers at once (after the reply), not at the next status; a new
        // observation gets its first value here.
        propertiesChanged()
        target?.requestHandled()
    }

    /// A request's command words, and its request id (0 when it has none, as mpv).
    static func command(in line: String, requestID: inout JSONValue) throws(IPCError) -> [JSONValue] {
        guard line.hasPrefix("{") else {
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { .string(String($0)) }
        }
        guard let request = try? JSONValue(parsing: line), case .object = request else { throw .invalidParameter }
        if let id = request["request_id"] { requestID = id }
        guard case .array(let words)? = request["command"], case .string? = words.first else {
            throw .invalidParameter
        }
        return words
    }

    private func run(_ words: [JSONValue], for connection: IPCConnection) throws(IPCError) -> JSONValue? {
        guard let target, let name = words.first?.string else { throw .invalidParameter }
        let arguments = Array(words.dropFirst())
        switch name {
        case "get_property": return try value(of: try Self.string(arguments, 0), in: target)
        case "get_property_string":
            return .string(Self.plain(try value(of: try Self.string(arguments, 0), in: target)))
        case "set_property", "set_property_string":
            guard arguments.count == 2 else { throw .invalidParameter }
            let property = try Self.string(arguments, 0)
            guard exists(property, in: target) else { throw .propertyNotFound }
            try target.setProperty(property, to: arguments[1])
            return nil
        case "observe_property", "observe_property_string":
            guard arguments.count == 2, let id = arguments[0].integer, let property = arguments[1].string else {
                throw .invalidParameter
            }
            guard exists(property, in: target) else { throw .propertyNotFound }
            connection.observations[id] = IPCConnection.Observation(name: property)
            return nil
        case "unobserve_property":
            guard arguments.count == 1, let id = arguments[0].integer else { throw .invalidParameter }
            connection.observations[id] = nil
            return nil
        case "client_name": return .string(connection.name)
        case "get_version": return .number(Double(2 << 16 | 1))
        case "enable_event", "disable_event", "request_log_messages": return nil
        case "set":
            guard arguments.count == 2 else { throw .invalidParameter }
            try target.setProperty(try existing(try Self.string(arguments, 0), in: target), to: arguments[1])
            return nil
        case "cycle": return try cycle(arguments, in: target)
        case "add": return try add(arguments, in: target)
        default:
            guard target.commandNames.contains(name) else { throw .invalidParameter }
            return try target.run(name, arguments)
        }
    }

    private func sendChange(
        id: Int, name: String, value: JSONValue?, to connection: IPCConnection, at now: ContinuousClock.Instant
    ) {
        var fields: [(String, JSONValue)] = [
            ("event", "property-change"), ("id", .number(Double(id))), ("name", .string(name)),
        ]
        if let value { fields.append(("data", value)) }
        connection.send(JSONValue.object(fields).text)
        connection.observations[id]?.lastSent = value
        connection.observations[id]?.lastSentAt = now
    }

    /// `cycle FLAG` toggles a flag property (pause, mute).
    private func cycle(_ arguments: [JSONValue], in target: any IPCTarget) throws(IPCError) -> JSONValue? {
        let property = try existing(try Self.string(arguments, 0), in: target)
        // A loop property ("inf", a count, or false) turns off when it loops.
        let value: Bool
        switch target.property(property) {
        case .bool(let flag)?: value = flag
        case .string("inf")?: value = true
        case .number? where property.hasPrefix("loop-"): value = true
        default: throw .invalidParameter
        }
        try target.setProperty(property, to: .bool(!value))
        return nil
    }

    /// `add NUMBER [STEP]` adds the step (1 when none is given) to a number property (volume, speed, time-pos).
    private func add(_ arguments: [JSONValue], in target: any IPCTarget) throws(IPCError) -> JSONValue? {
        guard (1...2).contains(arguments.count) else { throw .invalidParameter }
        let property = try existing(try Self.string(arguments, 0), in: target)
        guard case .number(let value)? = target.property(property) else { throw .invalidParameter }
        let step = arguments.count == 2 ? try IPCValue.number(arguments[1]) : 1
        try target.setProperty(property, to: .number(value + step))
        return nil
    }

    /// `property`, when the target has it.
    private func existing(_ property: String, in target: any IPCTarget) throws(IPCError) -> String {
        guard target.propertyNames.contains(property) else { throw .propertyNotFound }
        return property
    }

    private func exists(_ property: String, in target: any IPCTarget) -> Bool {
        target.propertyNames.contains(property) || ["property-list", "command-list"].contains(property)
    }

    private func value(of property: String, in target: any IPCTarget) throws(IPCError) -> JSONValue {
        switch property {
        case "property-list":
            return .array((target.propertyNames + ["property-list", "command-list"]).map { .string($0) })
        case "command-list":
            return .array((Self.protocolCommands + target.commandNames).map { .object([("name", .string($0))]) })
        default:
            guard exists(property, in: target) else { throw .propertyNotFound }
            guard let value = target.property(property) else { throw .propertyUnavailable }
            return value
        }
    }

    static func string(_ arguments: [JSONValue], _ index: Int) throws(IPCError) -> String {
        guard index < arguments.count, let text = arguments[index].string else { throw .invalidParameter }
        return text
    }

    /// A value as get_property_string gives it (strings bare, flags yes/no, the rest as JSON).
    static func plain(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .bool(let flag): flag ? "yes" : "no"
        default: value.text
        }
    }
}
