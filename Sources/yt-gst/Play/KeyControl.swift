// yt-gst — the keyboard during `play`: keys read on the main loop and sent to the session as commands.
import AppSrcFeeder
import GstPlayer

/// Reads the keys whenever the terminal has some (a watch on the main loop, so on the session's thread) and sends
/// what they mean to the session; `g` gathers a time to go to and `k` lists the keys, here.
final class KeyControl {
    private let keyboard: KeyboardInput
    private let control: PlaybackSession.Control
    private let renderer: PlaybackRenderer
    /// Where `0` goes back to: --start, or the start of the file.
    private let start: Double
    private var watch: MainLoop.Watch?

    init(_ keyboard: KeyboardInput, control: PlaybackSession.Control, renderer: PlaybackRenderer, start: Double?) {
        self.keyboard = keyboard
        self.control = control
        self.renderer = renderer
        self.start = start ?? 0
        watch = MainLoop.watch(keyboard.descriptor) { [weak self] in self?.readKeys() }
    }

    /// Stops reading the keys (they stay in the terminal's queue).
    func stop() { watch?.cancel() }

    private func readKeys() {
        for key in keyboard.keys() {
            if renderer.gotoText != nil {
                enterGoto(key)
            } else if let action = Keys.action(for: key) {
                perform(action)
            }
        }
    }

    private func perform(_ action: PlayerAction) {
        switch action {
        case .togglePause: control.togglePause()
        case .seek(let delta): control.seek(by: delta)
        case .restart: control.seek(to: start)
        case .volume(let step): control.send(.adjustVolume(percent: step))
        case .toggleMute: control.send(.toggleMute)
        case .rate(let step): control.send(.stepRate(step))
        case .next: control.next()
        case .previous: control.previous()
        case .loopPoint: control.setLoopPoint()
        case .beginGoto:
            // Going to a time is a seek, which a pipe cannot do: said at once rather than after the typing.
            if let file = renderer.playing, file.isStream {
                renderer.render(.seekUnavailable(path: file.path))
            } else {
                renderer.gotoText = ""
            }
        case .showKeys: renderer.report(Keys.help, toStderr: false)
        case .quit: control.stop()
        }
    }

    private func enterGoto(_ key: Key) {
        switch key {
        case .enter:
            if let text = renderer.gotoText, let seconds = TimeText.seconds(text) { control.seek(to: seconds) }
            renderer.gotoText = nil
        case .escape: renderer.gotoText = nil
        case .backspace: if renderer.gotoText?.isEmpty == false { renderer.gotoText?.removeLast() }
        case .char(let c) where c.isNumber || c == ":" || c == ".": renderer.gotoText?.append(c)
        default: break
        }
    }
}
