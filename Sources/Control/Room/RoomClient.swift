// yt-gst — a receiver's side of the control service: it registers with its sender's hub and does what it is told.
import GstPlayer
import Streaming

/// Connects to the hub on the sender's control port once the receiver knows its sender (`senderFound`), says who
/// it is (`yt-gst.Room.Hello`, after `Server.Authenticate` when it has a token), applies the config the hub gives
/// it through `ReceiveModel` (volume on PulseAudio's cubic curve, mute = its own or its group's, delay live), keeps
/// it in its identity's file, reports its state at most once a second when it changed, and connects again every
/// 2 s while the stream plays. When no hub answers it stays quiet (one line with `log`, the verbose one).
///
/// Give it every session event after the model has taken it (`handle(_:)`); `close()` when the session ended.
/// - Note: Not Sendable: used on the main loop's thread only.
public final class RoomClient {
    /// How long a connection attempt may take, and the pause between two.
    static let retryInterval = Duration.seconds(2)
    /// The least time between two reports.
    static let reportInterval = Duration.seconds(1)
    /// How often the session should send its status (what is reported) when nothing else asks for it.
    public static let statusInterval = Duration.milliseconds(500)

    public internal(set) var identity: RoomIdentity
    /// Whether the hub has taken the Hello (the room is registered now).
    public internal(set) var registered = false
    let model: ReceiveModel
    let port: Int
    let token: String?
    /// Where lines go that only --verbose shows; `warn` gets the few a user must see (a refused token).
    let log: ((String) -> Void)?
    let warn: (String) -> Void
    var sender: String?
    var connection: LineSocket?
    var connector: TCPConnector?
    var retry: MainLoop.Watch?
    var groupMuted = false
    var lastReport: RoomReport?
    var lastReportAt: ContinuousClock.Instant?
    var latestReport: RoomReport?
    var saidNoHub = false
    var saidRefused = false
    var saidStoreProblem = false
    var closed = false

    /// A client for the room `identity`, talking to the sender's `port`; its kept volume and mute are applied
    /// to `model` at once (its delay is the session's start value: the caller configured it).
    public init(
        identity: RoomIdentity, model: ReceiveModel, port: Int, token: String?, log: ((String) -> Void)?,
        warn: @escaping (String) -> Void
    ) {
        self.identity = identity
        self.model = model
        self.port = port
        self.token = token
        self.log = log
        self.warn = warn
        applyToModel()
    }

    /// Takes one session event: the sender's address starts the first connection; a status may be reported.
    public func handle(_ event: ReceiveSession.Event) {
        switch event {
        case .senderFound(let address):
            guard sender == nil else { return }
            sender = address
            connect()
        case .status(let status):
            report(RoomReport(status))
        default:
            break
        }
    }

    /// Disconnects and stops reconnecting (the session has ended).
    public func close() {
        closed = true
        retry?.cancel()
        connector?.cancel()
        connection?.close()
        (retry, connector, connection) = (nil, nil, nil)
    }

    deinit { close() }

    /// The hub's address, as said in messages ("10.0.0.1:1705", "[fe80::1]:1705").
    var hubAddress: String {
        guard let sender else { return "" }
        return (sender.contains(":") ? "[\(sender)]" : sender) + ":\(port)"
    }

    func connect() {
        guard !closed, let sender, connection == nil, connector == nil else { return }
        connector = TCPConnector(host: sender, port: port, timeout: Self.retryInterval) { [unowned self] result in
            connector = nil
            switch result {
            case .success(let socket): connected(socket)
            case .failure(let error): failed("no hub at \(hubAddress) (\(error.reason))")
            }
        }
    }

    /// Tries again in `retryInterval` (while not closed).
    func failed(_ reason: String) {
        guard !closed else { return }
        if !saidNoHub { log?("yt-gst: control: \(reason); trying again every 2 s") }
        saidNoHub = true
        retry = MainLoop.after(Self.retryInterval) { [weak self] in
            self?.retry = nil
            self?.connect()
        }
    }

    private func connected(_ socket: StreamSocket) {
        let lines = LineSocket(socket)
        connection = lines
        lines.onLine = { [unowned self] in take($0) }
        socket.onClose = { [unowned self] in
            connection = nil
            registered = false
            failed("the hub at \(hubAddress) closed the connection")
        }
        if let token {
            send(JSONRPC.request("Server.Authenticate", id: Self.authenticateID, .object([("token", .string(token))])))
        }
        send(JSONRPC.request("yt-gst.Room.Hello", id: Self.helloID, hello))
    }

    func send(_ message: JSONValue) { connection?.send(message.text) }
}
