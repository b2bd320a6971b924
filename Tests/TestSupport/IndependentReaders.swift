// yt-gst — what readers that share no code with yt-gst make of a WAV: python's wave, libsndfile (python3-soundfile),
// sox and GStreamer's wavparse.
import Foundation

public enum IndependentReaders {
    /// Frames (or bytes, for wavparse) each reader got; nil where the reader refused the file.
    public struct Result: Sendable, CustomStringConvertible {
        public var pythonWave: Int?
        public var soundfile: Int?
        public var sox: Int?
        /// Bytes of raw audio that `filesrc ! wavparse ! filesink` wrote.
        public var wavparseBytes: Int?
        /// What the readers said on stderr (sox warnings, python errors).
        public var messages: String

        public var description: String {
            "wave=\(pythonWave.map(String.init) ?? "refused") soundfile=\(soundfile.map(String.init) ?? "refused") "
                + "sox=\(sox.map(String.init) ?? "refused") wavparse=\(wavparseBytes.map(String.init) ?? "refused") "
                + messages
        }
    }

    /// The Debian python, which has python3-soundfile (a pyenv one on PATH may not).
    static let python =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"

    static let script = """
        import sys, wave
        try:
            import soundfile
        except ImportError:
            soundfile = None
        for path in sys.argv[1:]:
            try:
                with wave.open(path) as w: a = str(w.getnframes())
            except Exception as e: a = "-"
            try:
                b = str(soundfile.info(path).frames) if soundfile else "-"
            except Exception as e: b = "-"
            print(a, b)
        """

    /// Runs every reader on each of `paths` (python once for all of them).
    public static func check(_ paths: [String]) throws -> [Result] {
        let py = try Run.run(python, ["-c", script] + paths, timeout: 120)
        let lines = py.stdout.split(separator: "\n")
        return try paths.enumerated().map { index, path in
            let fields = index < lines.count ? lines[index].split(separator: " ").map { Int($0) } : [nil, nil]
            let soxi = try Run.run("/usr/bin/soxi", ["-s", path], timeout: 30)
            let raw = path + ".wavparse.raw"
            defer { try? FileManager.default.removeItem(atPath: raw) }
            let gst = try Run.run(
                "/usr/bin/gst-launch-1.0",
                [
                    "-q", "filesrc", "location=\(path)", "!", "wavparse", "!", "filesink",
                    "location=\(raw)",
                ], timeout: 60)
            let size = (try? FileManager.default.attributesOfItem(atPath: raw)[.size] as? Int) ?? nil
            return Result(
                pythonWave: fields.first ?? nil, soundfile: fields.count > 1 ? fields[1] : nil,
                sox: soxi.status == 0 ? Int(soxi.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) : nil,
                wavparseBytes: gst.status == 0 ? size : nil,
                messages: (soxi.stderr + gst.stderr + (index == 0 ? py.stderr : "")).trimmingCharacters(
                    in: .whitespacesAndNewlines))
        }
    }

    /// `check` for one file.
    public static func check(_ path: String) throws -> Result { try check([path])[0] }
}
