// yt-gst — what the control surfaces of `stream` know about the stream: one model, fed by the session's events.
import Streaming
import WAV

/// How a stream's list repeats (Streaming's `LoopMode`: none, track, playlist).
public typealias LoopMode = Streaming.LoopMode

/// A stream as its events told it, and the commands a surface sends, with what they change at once (so a client
/// reading back what it just set sees it before the session has run the command).
///
/// `onChange` is called after anything a now-playing view shows has changed (the file, pause, a seek, loop, shuffle,
/// volume), once per change, whether a setter here or the session's event changed it; never for the position
/// moving on alone.
/// - Note: Not Sendable: events and requests both arrive on the main loop's thread.
public final class StreamModel {
    /// Where the commands go; set once the session exists.
    public var control: StreamSession.Control?
    /// Called on the loop after a change a now-playing view shows.
    public var onChange: (() -> Void)?
    public private(set) var paused = false
    /// Seconds into the file going out, at the last status (or seek); nil before the first.
    public private(set) var seconds: Double?
    /// The file going out and its place in the list.
    public private(set) var path: String?
    public private(set) var position: Int?
    /// Its title tag (else its file name), artist and album tags (LIST/INFO), and its length in seconds (nil when
    /// unknown: a pipe).
    public private(set) var title: String?
    public private(set) var artist: String?
    public private(set) var album: String?
    public private(set) var duration: Double?
    public private(set) var loop = LoopMode.none
    public private(set) var shuffle = false
    /// The gain of what goes out, as a percent (`VolumePercent`).
    public private(set) var volumePercent = 100

    public init() {}

    /// Takes one session event (before any surface reads it).
    public func update(_ event: StreamSession.Event) {
        switch event {
        case .status(let status):
            seconds = status.fileTime?.seconds
        case .fileChanged(let path, let position):
            self.path = path
            self.position = position
            seconds = 0
            describe(path)
            onChange?()
        case .pausedChanged(let paused):
            change(\.paused, to: paused)
        case .seeked(let fileTime):
            seconds = fileTime.seconds
            onChange?()
        case .orderChanged(let loop, let shuffle):
            changeOrder(loop: loop, shuffle: shuffle)
        case .volumeChanged(let gain):
            change(\.volumePercent, to: VolumePercent.percent(ofGain: gain))
        case .sending, .fileWarning, .fileFailed, .emptyFile, .clockNotPublished, .callerConnected, .warning:
            break
        }
    }

    public func setPaused(_ pause: Bool) {
        change(\.paused, to: pause)
        pause ? control?.pause() : control?.resume()
    }

    /// The next (`by` 1) or previous (-1) file.
    public func skip(by step: Int) { step > 0 ? control?.next() : control?.previous() }

    /// To `seconds` into the file going out (past its end: the next file, or the end); a pipe cannot seek.
    public func seek(to seconds: Double) { control?.seek(to: seconds) }

    /// By `seconds` from where the file going out is.
    public func seek(by seconds: Double) { control?.seek(by: seconds) }

    /// What follows the file going out: itself, the list again, or the rest once (a list with a pipe: only once).
    public func setLoop(_ mode: LoopMode) {
        changeOrder(loop: mode, shuffle: shuffle)
        control?.setLoop(mode)
    }

    /// What follows the file going out, in a random order or as given.
    public func setShuffle(_ on: Bool) {
        changeOrder(loop: loop, shuffle: on)
        control?.setShuffle(on)
    }

    /// The gain of what goes out, in percent (0 to 100, `VolumePercent`): every receiver hears it.
    public func setVolume(percent: Int) {
        let percent = min(max(percent, 0), 100)
        change(\.volumePercent, to: percent)
        control?.setVolume(VolumePercent.gain(percent))
    }

    public func stop() { control?.stop() }

    /// Sets a value a now-playing view shows; `onChange` when it differs.
    private func change<Value: Equatable>(_ key: ReferenceWritableKeyPath<StreamModel, Value>, to value: Value) {
        guard self[keyPath: key] != value else { return }
        self[keyPath: key] = value
        onChange?()
    }

    private func changeOrder(loop: LoopMode, shuffle: Bool) {
        guard loop != self.loop || shuffle != self.shuffle else { return }
        self.loop = loop
        self.shuffle = shuffle
        onChange?()
    }

    /// The tags and length of the file at `path`, from its header (never a pipe's: see `PlaybackModel.header`).
    private func describe(_ path: String) {
        let header = PlaybackModel.header(ofFile: path)
        let tags = PlaybackModel.metadata(header?.metadata.info ?? [])
        func tag(_ name: String) -> String? { tags.first { $0.0 == name }?.1 }
        title = tag("title") ?? PlaybackModel.filename(path)
        artist = tag("artist")
        album = tag("album")
        duration = header.flatMap { $0.lengthIsKnown ? $0.durationSeconds : nil }
    }
}
