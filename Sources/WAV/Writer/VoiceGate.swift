// yt-gst — voice activation: which recorded samples to keep when only sound above a level is wanted.

/// Lets samples through while the level is above a threshold, with a pre-roll kept from a ring buffer (so the
/// start of a word is not cut) and a hang time (so pauses between words do not cut a sentence into pieces).
///
/// Times are counted in frames of the audio, not on a clock, so the same input always gives the same output.
public struct VoiceGate: Sendable {
    /// What to do with one buffer.
    public struct Decision: Sendable {
        /// The bytes to write now (the pre-roll first when the gate just opened); empty while closed.
        public var bytes: [UInt8]
        /// The gate opened with this buffer: an utterance starts (a new file with `--split vox`).
        public var opened: Bool
        /// The gate closed after this buffer: the utterance is over.
        public var closed: Bool
    }

    public let threshold: Float
    public let preRollFrames: Int
    public let hangFrames: Int
    public let blockAlign: Int
    public private(set) var isOpen = false
    private var ring: [UInt8] = []
    private var quietFrames = 0

    /// - Parameter threshold: the linear peak (0...1) a buffer must reach to open the gate or keep it open.
    public init(threshold: Float, preRollFrames: Int, hangFrames: Int, blockAlign: Int) {
        self.threshold = threshold
        self.preRollFrames = preRollFrames
        self.hangFrames = hangFrames
        self.blockAlign = blockAlign
    }

    /// Decides about one buffer of whole frames whose loudest sample is `peak`.
    public mutating func process(_ bytes: [UInt8], peak: Float) -> Decision {
        let loud = peak >= threshold
        guard isOpen else {
            guard loud else {
                ring += bytes
                let keep = preRollFrames * blockAlign
                if ring.count > keep { ring.removeFirst(ring.count - keep) }
                return Decision(bytes: [], opened: false, closed: false)
            }
            isOpen = true
            quietFrames = 0
            defer { ring = [] }
            return Decision(bytes: ring + bytes, opened: true, closed: false)
        }
        quietFrames = loud ? 0 : quietFrames + bytes.count / blockAlign
        let closing = quietFrames >= hangFrames
        if closing { isOpen = false }
        return Decision(bytes: bytes, opened: false, closed: closing)
    }
}
