// yt-gst — what a room says to its hub (Hello, Report) and what it does with the hub's answers (Configure).
import Streaming

extension RoomClient {
    static let authenticateID = 1
    static let helloID = 2

    /// Hello's params: the room's id, name, host, its own config and version.
    var hello: JSONValue {
        let host = HubHost.local
        return .object([
            (
                "config",
                .object([("latency", .number(Double(identity.config.latency))), ("volume", identity.config.volumeJSON)])
            ),
            (
                "host",
                .object([
                    ("arch", .string(host.arch)), ("mac", ""), ("name", .string(host.name)), ("os", .string(host.os)),
                ])
            ),
            ("id", .string(identity.id)),
            ("name", .string(identity.config.name)),
            ("version", .string(toolVersion)),
        ])
    }

    /// One line from the hub: the answer to Hello (or to the token), or a Configure.
    func take(_ line: String) {
        guard let message = try? JSONValue(parsing: line) else { return }
        if message["method"]?.string == "yt-gst.Room.Configure", let params = message["params"] {
            return configure(params)
        }
        let id = message["id"]?.integer
        if let error = message["error"], id == Self.authenticateID || id == Self.helloID {
            if !saidRefused {
                warn(
                    "yt-gst: control: the hub at \(hubAddress) refused this room: \(error["message"]?.string ?? "error")"
                )
            }
            saidRefused = true
        } else if id == Self.helloID, let result = message["result"] {
            registered = true
            log?("yt-gst: control: registered with the hub at \(hubAddress) as \(identity.id)")
            configure(result)
            if let report = latestReport { send(report: report) }
        }
    }

    /// Applies `{"config": {...}, "groupMuted": M}` and keeps the config.
    func configure(_ params: JSONValue) {
        let config = RoomConfig(json: params["config"] ?? .null)
        groupMuted = params["groupMuted"]?.bool ?? false
        let changed = config != identity.config
        identity.config = config
        applyToModel()
        guard changed else { return }
        do { try identity.save() } catch {
            if !saidStoreProblem { warn("yt-gst: control: cannot keep this room's settings: \(error)") }
            saidStoreProblem = true
        }
    }

    /// Sets the model to the config where it differs: volume (percent → cubic gain), mute (own or group's), delay.
    func applyToModel() {
        let config = identity.config
        let gain = VolumePercent.gain(config.volumePercent)
        if abs(model.volume - gain) > 1e-9 { model.setVolume(gain) }
        let mute = config.muted || groupMuted
        if model.muted != mute { model.setMuted(mute) }
        if model.delayMilliseconds != config.latency { model.setDelay(milliseconds: config.latency) }
    }

    /// Reports `report` when registered, it changed, and the last was at least `reportInterval` ago (the next
    /// status brings it otherwise).
    func report(_ report: RoomReport) {
        latestReport = report
        guard registered, lastReport.map({ report.differs(from: $0) }) ?? true,
            lastReportAt.map({ ContinuousClock.now - $0 >= Self.reportInterval }) ?? true
        else { return }
        send(report: report)
    }

    func send(report: RoomReport) {
        send(JSONValue.object([("jsonrpc", "2.0"), ("method", "yt-gst.Room.Report"), ("params", report.json)]))
        lastReport = report
        lastReportAt = .now
    }
}

/// What a room reports: its state, its sync (nil when not synchronised) and its packet counts.
struct RoomReport: Equatable {
    var state: String
    var offsetMicroseconds: Double?
    var roundTripMicroseconds: Double?
    var ppm: Double?
    var inSync: Bool?
    var received: Int
    var lost: Int
    var late: Int

    init(_ status: ReceiveSession.Status) {
        state =
            switch status.state {
            case .waiting: "waiting"
            case .receiving: "receiving"
            case .finishing: "finishing"
            }
        if let sync = status.sync {
            offsetMicroseconds = sync.clock.offset
            roundTripMicroseconds = sync.clock.roundTrip
            ppm = sync.output?.drift
            inSync = !sync.clock.lost && (sync.output == nil || sync.output?.phase == .following)
        }
        (received, lost, late) = (status.stats.received, status.stats.lost, status.stats.late)
    }

    /// Whether it says something new: another state or sync state, a loss, or the offset moved by 5 µs or more.
    func differs(from other: RoomReport) -> Bool {
        state != other.state || inSync != other.inSync || lost != other.lost || late != other.late
            || abs((offsetMicroseconds ?? 0) - (other.offsetMicroseconds ?? 0)) >= 5
            || (offsetMicroseconds == nil) != (other.offsetMicroseconds == nil)
    }

    /// `{"packets": {...}, "state": S, "sync": {...} | null}`, as the hub keeps and shows it.
    var json: JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map { .number($0.rounded()) } ?? .null }
        let sync: JSONValue =
            inSync == nil
            ? .null
            : .object([
                ("inSync", .bool(inSync ?? false)), ("offsetUs", number(offsetMicroseconds)), ("ppm", number(ppm)),
                ("rttUs", number(roundTripMicroseconds)),
            ])
        return .object([
            (
                "packets",
                .object([
                    ("late", .number(Double(late))), ("lost", .number(Double(lost))),
                    ("received", .number(Double(received))),
                ])
            ),
            ("state", .string(state)), ("sync", sync),
        ])
    }
}
