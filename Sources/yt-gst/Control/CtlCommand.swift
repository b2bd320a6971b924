// yt-gst — `yt-gst ctl PATH COMMAND...`: one mpv IPC command to a running yt-gst (for shells without socat).
import Control
import Glibc

struct CtlCommand {
    static let spec = CommandSpec(
        name: "ctl", abstract: "Send one command to a yt-gst started with --input-ipc-server.",
        operands: "PATH COMMAND [ARGUMENT...]",
        options: [],
        discussion: """
            Sends COMMAND with its arguments as one mpv JSON IPC request to the socket PATH (a bare name is looked
            up in $XDG_RUNTIME_DIR), prints the reply (one JSON line) and exits 0 when it says "success", 1 when it
            is an error (the error on stderr) or no player listens there. Arguments that read as JSON (numbers,
            true, false, null, quoted strings) are sent as such, the rest as strings. Put -- before a negative
            number.

            EXAMPLES:
              yt-gst play song.wav --input-ipc-server yt.sock &
              yt-gst ctl yt.sock set_property pause true
              yt-gst ctl yt.sock get_property time-pos
              yt-gst ctl yt.sock -- seek -10
              yt-gst ctl yt.sock loadfile other.wav append
            """)

    /// How long to wait for the reply.
    static let timeoutMilliseconds: Int32 = 5_000

    var socket: String
    var words: [String]

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard arguments.operands.count >= 2 else { throw UsageError("ctl needs a socket PATH and a COMMAND") }
        socket = arguments.operands[0]
        words = Array(arguments.operands.dropFirst())
    }

    func run() -> ExitCode {
        do {
            let reply = try IPCClient(socket: socket).request(
                IPCClient.request(words: words), timeoutMilliseconds: Self.timeoutMilliseconds)
            if let error = reply["error"]?.string, error != "success" {
                Terminal.error("yt-gst: \(words[0]): \(error)")
                return .failure
            }
            Terminal.write(reply.text + "\n")
            return .success
        } catch {
            Terminal.error("yt-gst: \(error)")
            return .failure
        }
    }
}
