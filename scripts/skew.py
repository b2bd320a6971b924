#!/usr/bin/env python3
# yt-gst — skew between two receivers recorded as the left and right channel of one stereo recording.
#
# The multi-room lab (scripts/multiroom-lab.py) plays receiver 1 into the left channel of a PulseAudio null sink and
# receiver 2 into the right one, both playing the same white noise, and records the sink's monitor with parec. This
# reads that raw recording (48 kHz stereo, s16le or f32le) and, in windows of 0.5 s, cross-correlates left against
# right: the correlation is computed through an FFT, the integer peak refined to a fraction of a sample by evaluating
# the band-limited correlation (its spectrum) on a fine grid around the peak and fitting a parabola there (a parabola
# on the raw samples of a white-noise correlation, which is a sinc, errs by up to ~0.1 sample = 2.5 µs). Windows in
# which either channel is silent for more than a fifth are skipped (a receiver not playing yet); within a window,
# the 50 ms sub-windows with a dropout are left out.
#
# Prints one JSON object (see `analyse`). Sign: a positive lag means the right channel (receiver 2) is later. With
# --channels 3 the third channel is receiver 3, and every pair is reported too (see `analyse_receivers`).
# Instants on CLOCK_MONOTONIC (nanoseconds, as the lab records them) turn recording positions into latencies:
# `--t0-ns` is the monotonic time of the recording's first sample, `--send-ns` the start of sending, `--join-ns` the
# instant from which to measure how long the lag takes to settle within `--bound-us` of `--expect-us`.
#
# The time axis. The recording counts the device's samples, and the device (the null sink) need not play 48 000 of
# them per second of CLOCK_MONOTONIC: it renders ~80 ppm fast when pulsesink feeds it, and the lab's --device-ppm
# runs it faster still. So a recording position is turned into an instant by a `Timeline` (the lab pins positions
# to instants all along the recording; `--t0-ns` alone assumes the nominal rate), never by position / rate: that
# is the one place where device time becomes real time, for latencies, the settle time and the start of the steady
# stretch. Lags between the channels and their drift stay in device time (both channels are on the same device;
# at a few hundred ppm that changes a lag of 50 µs by 0.01 µs). A receiver that follows the sender's clock keeps
# its sending → sound latency in real time whatever the device's rate: `latency_track` measures that latency along
# the steady stretch (its drift is the device's rate against the sender's clock when the output is not aligned).
#
# Usage: scripts/skew.py RECORDING [--format s16le|f32le] [--expect-us E] [--bound-us B] [--t0-ns N --send-ns N]
#                                  [--join-ns N] [--max-lag-ms M] [--lags]
#        scripts/skew.py --self-test      (synthetic known delays; exit 1 if any error exceeds 3 µs)
import argparse
import json
import sys

import numpy as np

RATE = 48_000
WINDOW_S = 0.5
BLOCK_S = 0.005  # silence is judged in blocks of 5 ms
SOUNDING_FRACTION = 0.8  # a window counts if this much of it sounds on both channels (dropouts are left out)
SILENCE_RMS = 10 ** (-50 / 20)  # -50 dBFS: white noise at any usable level is far above it
MIN_CORRELATION = 0.5  # a window whose normalised peak is lower compares different audio (a jump, a glitch)
GAP_MIN_SAMPLES = 12  # 0.25 ms of exact zeros: white noise never holds 12 zero samples in a row (p < 1e-40)
REFINE_STEPS = 8  # grid points per sample when refining the peak (then a parabola through the top three)
SUB_S = 0.05  # sub-windows whose lags make a window's (see window_lag)
SUB_SPAN = 24  # samples searched either side of the whole window's lag in each sub-window (0.5 ms)
TRACK_SPAN = 480  # samples searched either side of the previous place in the source (10 ms; see latency_track)


def read(path, fmt, channels=2, header=0):
    """The recording (or a WAV after its `header` bytes) as a (frames, channels) float array in [-1, 1]."""
    if fmt == "s16le":
        raw = np.fromfile(path, dtype="<i2", offset=header)
        data = raw.astype(np.float64) / 32768.0
    else:
        data = np.fromfile(path, dtype="<f4").astype(np.float64)
    frames = len(data) // channels
    return data[: frames * channels].reshape(frames, channels)


class Timeline:
    """Where a recording's samples were on CLOCK_MONOTONIC: positions pinned to instants (ns), interpolated between
    them and extended past the ends along the nearest pair's slope (see the header's time axis)."""

    def __init__(self, positions, instants_ns):
        self.positions = np.asarray(positions, dtype=np.float64)
        self.instants = np.asarray(instants_ns, dtype=np.float64)
        if len(self.positions) < 2 or np.any(np.diff(self.positions) <= 0):
            raise ValueError("a timeline needs two or more increasing positions")

    @classmethod
    def nominal(cls, t0_ns, rate):
        """Sample 0 at `t0_ns`, `rate` samples a second."""
        return cls([0, rate], [t0_ns, t0_ns + 1e9])

    @staticmethod
    def _along(x, xs, ys):
        y = np.interp(x, xs, ys)
        if x < xs[0]:
            y = ys[0] + (x - xs[0]) * (ys[1] - ys[0]) / (xs[1] - xs[0])
        elif x > xs[-1]:
            y = ys[-1] + (x - xs[-1]) * (ys[-1] - ys[-2]) / (xs[-1] - xs[-2])
        return float(y)

    def ns(self, position):
        """The instant (ns) at which recording position `position` (samples, fractional) was played."""
        return self._along(position, self.positions, self.instants)

    def position(self, ns):
        """The recording position played at instant `ns`."""
        return self._along(ns, self.instants, self.positions)

    def ppm(self, since_ns=-np.inf):
        """How much faster than `RATE` a second the recording ran from `since_ns` on (least squares; None if too
        short)."""
        kept = self.instants >= since_ns
        if kept.sum() < 3:
            return None
        slope = np.polyfit(self.instants[kept] / 1e9, self.positions[kept], 1)[0]
        return round(float((slope / RATE - 1) * 1e6), 1)


def band_limited(spectrum, n, taus):
    """The real signal whose rfft of length `n` is `spectrum`, evaluated at fractional positions `taus`."""
    f = np.arange(len(spectrum))
    weights = np.full(len(spectrum), 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    phase = np.exp(2j * np.pi * np.outer(taus, f) / n)
    return (phase @ (weights * spectrum)).real / n


def correlate(left, right, start, size, centre, span):
    """Lag in samples (fractional) of `right` against `left` over `left[start:start+size]`, searched within
    `centre` ± `span` samples, and the normalised correlation at the integer peak.

    Linear correlation c[k] = sum_n left[start+n] * right[start+n+k], computed with one FFT of a zero-padded length
    so that nothing wraps round; the peak is then refined on the band-limited correlation (see the header).
    """
    segment = right[start + centre - span : start + size + centre + span]
    n = 1 << int(np.ceil(np.log2(size + 2 * span)))
    padded = np.zeros(n)
    padded[span : span + size] = left[start : start + size]
    spectrum = np.conj(np.fft.rfft(padded)) * np.fft.rfft(segment, n)
    corr = np.fft.irfft(spectrum, n)
    # c[centre + j] sits at index j (j >= 0) and n + j (j < 0).
    offsets = np.arange(-span, span + 1)
    values = corr[offsets % n]
    j = int(offsets[np.argmax(values)])
    k = centre + j
    a, b = left[start : start + size], right[start + k : start + k + size]
    energy = np.sqrt(np.dot(a, a) * np.dot(b, b))
    peak = values[j + span] / energy if energy > 0 else 0.0
    taus = j + np.arange(-REFINE_STEPS, REFINE_STEPS + 1) / REFINE_STEPS
    fine = band_limited(spectrum, n, taus)
    i = min(max(int(np.argmax(fine)), 1), len(fine) - 2)
    y0, y1, y2 = fine[i - 1], fine[i], fine[i + 1]
    denominator = y0 - 2 * y1 + y2
    offset = 0.5 * (y0 - y2) / denominator if denominator != 0 else 0.0
    return centre + float(taus[i] + offset / REFINE_STEPS), float(peak)


def window_lag(left, right, start, size, max_lag, rate):
    """Lag in samples of the window at `start` and its mean normalised peak.

    The whole window finds the integer lag within ±max_lag; the lag reported is then the mean over sub-windows of
    SUB_S searched close to it. A drifting lag (200 ppm moves 100 µs in 0.5 s) smears a long window's correlation
    peak into a plateau whose top is noise; within a sub-window it moves only 10 µs.
    """
    coarse, _ = correlate(left, right, start, size, 0, max_lag)
    centre = int(round(coarse))
    sub = int(round(SUB_S * rate))
    block = int(round(BLOCK_S * rate))
    # Only sub-windows where both sound throughout: a dropout (lost packet) leaves the rest of the window usable.
    results = [correlate(left, right, s, sub, centre, SUB_SPAN) for s in range(start, start + size - sub + 1, sub)
               if sounding(left, s, sub, block) == 1 and sounding(right, s + centre, sub, block) == 1]
    results = [r for r in results if r[1] >= MIN_CORRELATION]
    if len(results) < size // sub // 2:
        return 0.0, 0.0
    return float(np.mean([r[0] for r in results])), float(np.mean([r[1] for r in results]))


def sounding(channel, start, size, block):
    """The fraction of the blocks of `channel[start:start+size]` that are above the silence level."""
    blocks = channel[start : start + size].reshape(-1, block)
    return float(np.mean(np.sqrt(np.mean(blocks * blocks, axis=1)) > SILENCE_RMS))


def first_sound(channel, block):
    """Index of the first sample of the first non-silent block (then refined to the first non-zero sample)."""
    usable = len(channel) // block * block
    rms = np.sqrt(np.mean(channel[:usable].reshape(-1, block) ** 2, axis=1))
    loud = np.nonzero(rms > SILENCE_RMS)[0]
    if len(loud) == 0:
        return None
    start = max(0, (loud[0] - 1) * block)
    nonzero = np.nonzero(channel[start : (loud[0] + 1) * block])[0]
    return int(start + nonzero[0]) if len(nonzero) else int(loud[0] * block)


def silent_runs(channel, least=GAP_MIN_SAMPLES):
    """The runs of exact digital silence of at least `least` samples inside the sounding part of `channel`, as
    (first, end) sample indexes."""
    nonzero = np.nonzero(channel)[0]
    if len(nonzero) < 2:
        return []
    runs = np.diff(nonzero) - 1  # zeros between consecutive non-zero samples
    at = np.nonzero(runs >= least)[0]
    return [(int(nonzero[i]) + 1, int(nonzero[i + 1])) for i in at]


def gaps(channel, rate):
    """Runs of exact digital silence inside the sounding part of `channel`: a dropout (a lost packet played as
    silence, an underrun). Returns (longest in ms, how many runs of at least GAP_MIN_SAMPLES)."""
    runs = [end - first for first, end in silent_runs(channel)]
    return (max(runs) * 1000 / rate if runs else 0.0), len(runs)


def gaps_at(channel, rate, since):
    """Where `gaps` are: [seconds after sample `since` (the channel's first sound), length in ms] for each run."""
    return [[round((first - since) / rate, 3), round((end - first) * 1000 / rate, 3)]
            for first, end in silent_runs(channel)]


def common_gaps(channels, rate, least_ms=1.0):
    """Dropouts of at least `least_ms` heard in every channel at once (overlapping by that much): the audio server
    or the recorder lost them, not one receiver (each plays its own channel). Returns {"count", "longest_ms"}."""
    least = int(least_ms * rate / 1000)
    shared = [(first, end) for first, end in silent_runs(channels[0], least)]
    for channel in channels[1:]:
        others = silent_runs(channel, least)
        shared = [(max(a, c), min(b, d)) for a, b in shared for c, d in others if min(b, d) - max(a, c) >= least]
    longest = max((end - first for first, end in shared), default=0)
    return {"count": len(shared), "longest_ms": longest * 1000 / rate}


def settle_time(times, lags, expect, bound, since):
    """Seconds from `since` (recording time) to the start of the first window after which every window's lag is
    within `bound` of `expect`, or None when the last window is still outside."""
    outside = [t for t, lag in zip(times, lags) if abs(lag - expect) > bound]
    later = [t for t in times if t >= since and (not outside or t > outside[-1])]
    if not later:
        return None
    return max(0.0, later[0] - WINDOW_S / 2 - since)


def analyse(data, rate=RATE, expect_us=0.0, bound_us=50.0, max_lag_ms=100.0, timeline=None, send_ns=None,
            join_ns=None, with_lags=False, warmup_s=None):
    """The skew report of a (frames, 2) recording, as a dict:

    windows, skipped_silent, skipped_uncorrelated; median_us (signed lag), mean_us, p99_abs_us and max_abs_us
    (of |lag - expect|), drift_us_per_s (least-squares slope of lag over time), range_us (max - min of the lag);
    first_sound_s {left, right} (recording time) and, with a `Timeline` and send_ns, latency_ms {left, right} (send
    -> first sound); longest_gap_ms and gap_count {left, right, max}, gaps_s {left, right} (each dropout: seconds
    after that channel's first sound, ms); with join_ns, settle_s (join -> in bound) and
    the statistics of the windows after that (after_settle); with warmup_s (and timeline, send_ns), those of the
    windows from that long after sending on (steady); with with_lags, lags [[t_s, lag_us, peak], ...].
    """
    size = int(round(WINDOW_S * rate))
    block = int(round(BLOCK_S * rate))
    max_lag = int(round(max_lag_ms * rate / 1000))
    left, right = data[:, 0], data[:, 1]
    times, lags, peaks = [], [], []
    silent = uncorrelated = 0
    for start in range(max_lag, len(left) - size - max_lag, size):
        if (sounding(left, start, size, block) < SOUNDING_FRACTION
                or sounding(right, start - max_lag, size + 2 * max_lag, block) < SOUNDING_FRACTION):
            silent += 1
            continue
        lag, peak = window_lag(left, right, start, size, max_lag, rate)
        if peak < MIN_CORRELATION:
            uncorrelated += 1
            continue
        times.append((start + size / 2) / rate)
        lags.append(lag * 1e6 / rate)
        peaks.append(peak)
    report = {"windows": len(lags), "skipped_silent": silent, "skipped_uncorrelated": uncorrelated,
              "expect_us": expect_us}
    report.update(statistics(times, lags, expect_us))
    first = {name: first_sound(ch, block) for name, ch in (("left", left), ("right", right))}
    report["first_sound_s"] = {k: (None if v is None else v / rate) for k, v in first.items()}
    if timeline is not None and send_ns is not None:
        report["latency_ms"] = {k: (None if v is None else (timeline.ns(v) - send_ns) / 1e6)
                                for k, v in first.items()}
    gap_left, gap_right = gaps(left, rate), gaps(right, rate)
    report["longest_gap_ms"] = {"left": gap_left[0], "right": gap_right[0], "max": max(gap_left[0], gap_right[0])}
    report["gap_count"] = {"left": gap_left[1], "right": gap_right[1]}
    report["gaps_s"] = {name: gaps_at(ch, rate, first[name] or 0) for name, ch in (("left", left), ("right", right))}
    report["common_gaps"] = common_gaps([left, right], rate)
    if join_ns is not None and timeline is not None:
        since = timeline.position(join_ns) / rate
        settle = settle_time(times, lags, expect_us, bound_us, since)
        report["bound_us"] = bound_us
        report["settle_s"] = settle
        if settle is not None:
            after = [(t, lag) for t, lag in zip(times, lags) if t - WINDOW_S / 2 >= since + settle]
            report["after_settle"] = statistics([t for t, _ in after], [lag for _, lag in after], expect_us)
    if warmup_s is not None and timeline is not None and send_ns is not None:
        steady(report, times, lags, expect_us, timeline.position(send_ns + warmup_s * 1e9) / rate)
        since = max(0, int(report["steady"]["since_s"] * rate))
        report["steady"]["longest_gap_ms"] = max(gaps(left[since:], rate)[0], gaps(right[since:], rate)[0])
    if with_lags:
        report["lags"] = [[round(t, 3), round(lag, 3), round(p, 3)] for t, lag, p in zip(times, lags, peaks)]
    return report


def steady(report, times, lags, expect_us, since_s):
    """The statistics of the windows from recording time `since_s` on (after the start-up), as report["steady"]
    (its longest gap is added by the caller, which has the samples)."""
    after = [(t, lag) for t, lag in zip(times, lags) if t - WINDOW_S / 2 >= since_s]
    report["steady"] = statistics([t for t, _ in after], [lag for _, lag in after], expect_us)
    report["steady"]["windows"] = len(after)
    report["steady"]["since_s"] = round(since_s, 3)


def source_index(channel, source, at, length, before=0):
    """The index in `source` of the sample heard at `channel[at]`: where `channel[at:at+length]` correlates best with
    `source` (FFT cross-correlation over the whole source), and the normalised peak. With `before` > 0 the sound may
    also begin up to that many samples ahead of the source (a negative index: a codec's pre-roll heard first)."""
    piece = channel[at:at + length].astype(np.float64)
    if len(piece) < length or not piece.any():
        return None, 0.0
    src = source.astype(np.float64)
    n = 1 << int(np.ceil(np.log2(len(src) + length + before)))
    corr = np.fft.irfft(np.fft.rfft(src, n) * np.conj(np.fft.rfft(piece, n)), n)
    corr = np.concatenate((corr[n - before:], corr[:len(src)])) if before else corr[:len(src)]
    k = int(np.argmax(corr)) - before
    norm = np.sqrt(np.sum(piece ** 2) * np.sum(src[max(k, 0):k + length] ** 2)) or 1.0
    return k, float(corr[k + before] / norm)


def first_samples(data, source, rate, first_sound_s, length_s=0.3, before_s=0.05):
    """Where in `source` each channel's sound begins (ms into the file): its first `length_s` heard, correlated
    with the whole source; negative (to -`before_s`) when the sound begins ahead of the file (Opus's pre-roll);
    None for a channel that never sounded or whose start does not correlate."""
    result = {}
    for index, name in enumerate(("left", "right", "center")[: data.shape[1]]):
        first = first_sound_s.get(name)
        k, peak = (None, 0.0) if first is None else source_index(
            data[:, index], source, int(round(first * rate)), int(length_s * rate), int(before_s * rate))
        result[name] = None if k is None or peak < 0.15 else round(k * 1000 / rate, 3)
    return result


def locate_piece(src, heard, around, reach):
    """Where in `src` the piece `heard` (a sound) is, within `reach` samples of `around`: its index, None where it
    correlates too weakly there (0.5), False where `src` has too little left to look in."""
    low = max(around - reach, 0)
    window = src[low:around + reach + len(heard)]
    if len(window) < len(heard):
        return False
    corr = np.correlate(window, heard, mode="valid")
    k = int(np.argmax(corr))
    norm = np.sqrt(np.sum(heard ** 2) * np.sum(window[k:k + len(heard)] ** 2)) or 1.0
    return low + k if corr[k] / norm > 0.5 else None


def start_skips(data, source, rate, first_sound_s, first_samples_ms, length_s=1.0, piece_s=0.02, reach_s=0.1):
    """How far each channel jumped in `source` within its first `length_s` of sound (ms; positive: skipped ahead,
    negative: repeated): every `piece_s` heard is found within `reach_s` of where the piece before it ended, and the
    largest jump is kept (0: played straight through); None for a channel without a first sample. first_samples'
    0.3 s correlation does not see a jump within it: a start-up correction that skipped 38-48 ms some 175 ms into
    the sound went unseen."""
    result = {}
    piece, reach = int(piece_s * rate), int(reach_s * rate)
    src = source.astype(np.float64)
    for index, name in enumerate(("left", "right", "center")[: data.shape[1]]):
        first, start_ms = first_sound_s.get(name), first_samples_ms.get(name)
        if first is None or start_ms is None:
            result[name] = None
            continue
        channel = data[:, index].astype(np.float64)
        at, expected, largest = int(round(first * rate)), int(round(start_ms * rate / 1000)), 0
        for _ in range(int(length_s / piece_s)):
            heard = channel[at:at + piece]
            if len(heard) < piece or not heard.any():
                break
            found = locate_piece(src, heard, expected, reach)
            if found is False:
                break
            if found is not None:
                jump = found - expected
                largest = jump if abs(jump) > abs(largest) else largest
                expected = found
            at, expected = at + piece, expected + piece
        result[name] = round(largest * 1000 / rate, 3)
    return result


def resume_jumps(data, source, rate, first_samples_ms, pause_s=0.3, piece_s=0.02, reach_s=0.2):
    """Where each channel's sound goes on in `source` after each silence of `pause_s` or more (a pause), against where
    it stopped (ms; 0: on from where it stopped, positive: skipped ahead, negative: repeated): a list per channel,
    None for a channel without a first sample (and in the list for a resumption not found within `reach_s`). Each
    stretch's end is found by its last `piece_s`, each resumption by its first, near where the stretch before
    ended."""
    result = {}
    piece, reach, pause = int(piece_s * rate), int(reach_s * rate), int(pause_s * rate)
    src = source.astype(np.float64)

    def locate(heard, around):
        if len(heard) < piece or not heard.any():
            return None
        found = locate_piece(src, heard, around, reach)
        return None if found is False else found

    for index, name in enumerate(("left", "right", "center")[: data.shape[1]]):
        channel = data[:, index].astype(np.float64)
        loud = np.flatnonzero(channel)
        start_ms = first_samples_ms.get(name)
        if len(loud) == 0 or start_ms is None:
            result[name] = None
            continue
        breaks = np.flatnonzero(np.diff(loud) > pause)
        starts = [int(loud[0])] + [int(loud[b + 1]) for b in breaks]
        ends = [int(loud[b]) + 1 for b in breaks] + [int(loud[-1]) + 1]
        position, jumps = int(round(start_ms * rate / 1000)), []  # where in `source` the stretch begins
        for number, (begin, end) in enumerate(zip(starts, ends)):
            if number > 0:
                found = locate(channel[begin:begin + piece], stopped)
                jumps.append(None if found is None else round((found - stopped) * 1000 / rate, 3))
                position = stopped if found is None else found
            last = max(end - piece, begin)
            found = locate(channel[last:end], position + last - begin)
            stopped = (position + last - begin if found is None else found) + end - last
        result[name] = jumps
    return result


def latency_track(data, source, timeline, start_ns, since_ns, step_s=1.0, length_s=0.5, piece_s=0.1):
    """Sending to sound along the steady stretch, per channel: every `step_s` from `since_ns` (+ 1 s) to the end of
    the recording, the sample heard there is found in the source (the first by its `length_s` over the whole
    source, each later one by its `piece_s` within 10 ms of where the previous was, to a fraction of a sample: a
    short piece, as the place moves while the device's rate differs), and the instant it was heard (`timeline`) is
    compared with when it was sent (`start_ns`, the instant source sample 0 went out, + its index / RATE).

    Returns {channel: {"ms": the first latency, "drift_us_per_s": least-squares slope over real time, "range_us":
    max - min, "points": how many}} with None for a channel whose sound does not correlate with the source."""
    step, length, piece = int(step_s * RATE), int(length_s * RATE), int(piece_s * RATE)
    first_at = int(timeline.position(since_ns + 1e9))
    result = {}
    for index, name in enumerate(("left", "right", "center")[: data.shape[1]]):
        channel = data[:, index]
        k, peak = source_index(channel, source, first_at, length)
        if k is None or peak < 0.15:  # chance peaks over a minute of noise stay below 0.04
            result[name] = None
            continue
        offset, times, latencies = float(k - first_at), [], []
        for at in range(first_at, len(channel) - length, step):
            centre = int(round(offset))
            if at + centre - TRACK_SPAN < 0 or at + centre + piece + TRACK_SPAN > len(source):
                break
            lag, peak = correlate(channel, source, at, piece, centre, TRACK_SPAN)
            if peak < 0.15:  # a dropout or a jump beyond 10 ms: find the place again in the whole source
                k, peak = source_index(channel, source, at, length)
                if k is None or peak < 0.15:
                    continue
                lag = float(k - at)
            offset = lag
            middle = at + piece / 2  # the lag found is the piece's mean: the place at its middle
            heard_ns = timeline.ns(middle)
            times.append(heard_ns / 1e9)
            latencies.append((heard_ns - (start_ns + (middle + lag) / RATE * 1e9)) / 1e6)
        if not latencies:
            result[name] = None
            continue
        values = np.array(latencies)
        drift = float(np.polyfit(times, values * 1000, 1)[0]) if len(values) >= 2 else 0.0
        result[name] = {"ms": round(float(values[0]), 3), "drift_us_per_s": round(drift, 2),
                        "range_us": round(float(values.max() - values.min()) * 1000, 1), "points": len(values)}
    return result


def analyse_receivers(data, rate=RATE, expect_us=0.0, bound_us=50.0, max_lag_ms=100.0, timeline=None, send_ns=None,
                      join_ns=None, with_lags=False, warmup_s=None):
    """`analyse` of receiver 2 against receiver 1 (channels 0 and 1); with a third channel (receiver 3, expected
    in step with receiver 1) also "pairs": the statistics of every pair ("1-2", "1-3", "2-3", each with its
    "steady" ones), "worst_p99_abs_us" and "worst_max_abs_us" over them (and "worst_steady_..."), and receiver 3's
    latency and dropouts as "center"."""
    report = analyse(data[:, :2], rate, expect_us, bound_us, max_lag_ms, timeline, send_ns, join_ns, with_lags,
                     warmup_s)
    if data.shape[1] < 3:
        return report
    expect = [0.0, expect_us, 0.0]
    keys = ("median_us", "p99_abs_us", "max_abs_us", "drift_us_per_s", "range_us", "windows")
    report["pairs"] = {"1-2": {k: report.get(k) for k in keys + ("steady",)}}
    for i, j in ((0, 2), (1, 2)):
        pair = analyse(data[:, [i, j]], rate, expect[j] - expect[i], bound_us, max_lag_ms, timeline, send_ns, join_ns,
                       warmup_s=warmup_s)
        report["pairs"][f"{i + 1}-{j + 1}"] = {k: pair.get(k) for k in keys + ("steady",)}
        if i == 0:
            report["first_sound_s"]["center"] = pair["first_sound_s"]["right"]
            if "latency_ms" in report:
                report["latency_ms"]["center"] = pair["latency_ms"]["right"]
            report["longest_gap_ms"]["center"] = pair["longest_gap_ms"]["right"]
            report["longest_gap_ms"]["max"] = max(report["longest_gap_ms"]["max"], pair["longest_gap_ms"]["right"])
            report["gap_count"]["center"] = pair["gap_count"]["right"]
            report["gaps_s"]["center"] = pair["gaps_s"]["right"]
    for key in ("p99_abs_us", "max_abs_us"):
        values = [v[key] for v in report["pairs"].values() if v[key] is not None]
        report["worst_" + key] = max(values) if values else None
        values = [v["steady"][key] for v in report["pairs"].values() if v["steady"] and v["steady"][key] is not None]
        report["worst_steady_" + key] = max(values) if values else None
    return report


def statistics(times, lags, expect_us):
    if not lags:
        return {"median_us": None, "mean_us": None, "p99_abs_us": None, "max_abs_us": None, "drift_us_per_s": None,
                "range_us": None, "core_range_us": None, "core_drift_us_per_s": None}
    lag, t = np.array(lags), np.array(times)
    error = np.abs(lag - expect_us)
    drift = float(np.polyfit(t, lag, 1)[0]) if len(lags) >= 2 else 0.0
    # The core: the windows between the 5th and 95th percentile of the lag, so that one transient excursion (a
    # dropout and its recovery) shows in range_us and p99 but not in how the offset holds the rest of the time.
    low, high = np.percentile(lag, [5, 95])
    core = (lag >= low) & (lag <= high)
    core_drift = float(np.polyfit(t[core], lag[core], 1)[0]) if core.sum() >= 2 else 0.0
    return {"median_us": round(float(np.median(lag)), 2), "mean_us": round(float(np.mean(lag)), 2),
            "p99_abs_us": round(float(np.percentile(error, 99)), 2), "max_abs_us": round(float(error.max()), 2),
            "drift_us_per_s": round(drift, 3), "range_us": round(float(lag.max() - lag.min()), 2),
            "core_range_us": round(float(high - low), 2), "core_drift_us_per_s": round(core_drift, 3)}


# MARK: self-test


def noise(frames, rng):
    """White noise, band-limited to 20 kHz (as any real path through resamplers and codecs is), at -10 dBFS RMS."""
    x = rng.standard_normal(frames)
    spectrum = np.fft.rfft(x)
    spectrum[np.fft.rfftfreq(frames, 1 / RATE) > 20_000] = 0
    x = np.fft.irfft(spectrum, frames)
    return x * (10 ** (-10 / 20) / np.std(x))


def delayed(x, delay_samples):
    """`x` delayed by a constant (fractional) number of samples: an exact phase shift of its spectrum."""
    spectrum = np.fft.rfft(x)
    f = np.fft.rfftfreq(len(x))
    return np.fft.irfft(spectrum * np.exp(-2j * np.pi * f * delay_samples), len(x))


def delayed_varying(x, delay_of_time):
    """`x` delayed by a time-varying number of samples, with a 256-tap Kaiser-windowed sinc interpolator."""
    taps = 128
    n = np.arange(len(x))
    positions = n - delay_of_time(n / RATE)
    out = np.zeros(len(x))
    for chunk in range(0, len(x), 8192):
        p = positions[chunk : chunk + 8192]
        base = np.floor(p).astype(int)
        k = base[:, None] + np.arange(-taps + 1, taps + 1)[None, :]
        d = p[:, None] - k
        w = np.sinc(d) * np.kaiser(2 * taps, 12)[None, :]
        valid = (k >= 0) & (k < len(x))
        out[chunk : chunk + 8192] = np.sum(np.where(valid, x[np.clip(k, 0, len(x) - 1)] * w, 0), axis=1)
    return out


def self_test():
    rng = np.random.default_rng(12)
    seconds = 6
    results, worst = [], 0.0
    for delay_us in (0, 12.5, 37, 250, -800, 10_000):
        x = noise(seconds * RATE, rng)
        y = delayed(x, delay_us * 1e-6 * RATE)
        # Quantised to 16 bits, as parec records.
        r = analyse(np.round(np.stack([x, y], axis=1) * 32768) / 32768, expect_us=delay_us, with_lags=True)
        # The circular shift wraps the end round: skip the first window (which holds it) in the error.
        errors = [abs(lag - delay_us) for t, lag, _ in r["lags"] if t > 0.5 + 0.1]
        worst = max(worst, max(errors))
        results.append({"case": f"constant {delay_us} us", "windows": r["windows"], "max_error_us": round(max(errors), 4)})
    # Drifting: 200 ppm (200 µs/s), starting at -300 µs.
    seconds = 10
    x = noise(seconds * RATE, rng)
    y = delayed_varying(x, lambda t: (-300e-6 + 200e-6 * t) * RATE)
    r = analyse(np.stack([x, y], axis=1), with_lags=True)
    errors = [abs(lag - (-300 + 200 * t)) for t, lag, _ in r["lags"]]
    worst = max(worst, max(errors))
    results.append({"case": "drifting -300 us + 200 us/s", "windows": r["windows"],
                    "drift_us_per_s": r["drift_us_per_s"], "max_error_us": round(max(errors), 4)})
    # Dropouts: 7 ms of silence on the right about twice a second (1 % of 7 ms packets lost) must not hide the lag.
    x = noise(10 * RATE, rng)
    y = delayed(x, 37e-6 * RATE)
    for at in rng.integers(RATE, 9 * RATE, 20):
        y[at : at + int(0.007 * RATE)] = 0
    r = analyse(np.stack([x, y], axis=1), expect_us=37, with_lags=True)
    errors = [abs(lag - 37) for t, lag, _ in r["lags"] if t > 0.6]
    worst = max(worst, max(errors))
    ok_dropouts = r["windows"] >= 17
    results.append({"case": "37 us with 20 dropouts of 7 ms", "windows": r["windows"],
                    "max_error_us": round(max(errors), 4), "ok": ok_dropouts})
    # The bookkeeping: leading silence (first sound), a 7 ms dropout on the right, a late right channel (settle).
    x = noise(8 * RATE, rng)
    y = delayed(x, 0.5e-3 * RATE)
    x[: int(0.3 * RATE)] = 0
    y[: int(3.0 * RATE)] = 0
    y[int(5 * RATE) : int(5.007 * RATE)] = 0
    t0 = 1_000_000_000
    r = analyse(np.stack([x, y], axis=1), expect_us=500, timeline=Timeline.nominal(t0, RATE),
                send_ns=t0 - 100_000_000, join_ns=t0 + int(2.9e9))
    checks = {
        "latency_left_ms (expect 400)": r["latency_ms"]["left"],
        "first_sound_right_s (expect 3.0)": r["first_sound_s"]["right"],
        "longest_gap_right_ms (expect 7)": r["longest_gap_ms"]["right"],
        "gap_count_left (expect 0)": r["gap_count"]["left"],
        "gaps_s_right (expect [[2.0, 7.0]])": r["gaps_s"]["right"],
        "settle_s (expect 0.1..0.6)": r["settle_s"],
    }
    ok_books = (abs(checks["latency_left_ms (expect 400)"] - 400) < 0.1
                and abs(checks["first_sound_right_s (expect 3.0)"] - 3.0) < 1e-4
                and abs(checks["longest_gap_right_ms (expect 7)"] - 7) < 0.05
                and checks["gap_count_left (expect 0)"] == 0
                and len(r["gaps_s"]["right"]) == 1 and abs(r["gaps_s"]["right"][0][0] - 2.0) < 1e-3
                and abs(r["gaps_s"]["right"][0][1] - 7.0) < 0.05
                and r["settle_s"] is not None and 0.1 <= r["settle_s"] <= 0.6)
    results.append({"case": "bookkeeping", **checks, "ok": ok_books})
    # The time axis: a device 200 ppm fast (48 009.6 samples a real second) on which the sound keeps 80 ms after
    # sending in real time: its latency holds only when positions become instants along the device's timeline.
    fast = 200e-6
    x = noise(8 * RATE, rng)
    y = delayed_varying(x[:6 * RATE], lambda t: (t * fast / (1 + fast) + 0.080) * RATE)[:, None]
    held = latency_track(y, x, Timeline([0, RATE * (1 + fast)], [t0, t0 + 1e9]), t0, t0)["left"]
    nominal = latency_track(y, x, Timeline.nominal(t0, RATE), t0, t0)["left"]
    ok_axis = (abs(held["ms"] - 80) < 0.01 and abs(held["drift_us_per_s"]) < 1
               and abs(nominal["drift_us_per_s"] - 200) < 5)
    results.append({"case": "latency on a device 200 ppm fast", "held": held, "read_at_the_nominal_rate": nominal,
                    "ok": ok_axis})
    ok = worst <= 3.0 and ok_books and ok_dropouts and ok_axis
    print(json.dumps({"ok": ok, "worst_error_us": round(worst, 3), "cases": results}, indent=1))
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser(description="Skew between the left and right channel of a raw 48 kHz recording.")
    p.add_argument("recording", nargs="?")
    p.add_argument("--format", choices=["s16le", "f32le"], default="s16le")
    p.add_argument("--channels", type=int, choices=[2, 3], default=2, help="receivers recorded (default 2)")
    p.add_argument("--rate", type=int, default=RATE)
    p.add_argument("--expect-us", type=float, default=0.0, help="the lag the receivers should have (a delay)")
    p.add_argument("--bound-us", type=float, default=50.0, help="settled: every later window within this")
    p.add_argument("--max-lag-ms", type=float, default=100.0, help="largest lag searched (default 100 ms)")
    p.add_argument("--t0-ns", type=int, help="CLOCK_MONOTONIC of the recording's first sample")
    p.add_argument("--send-ns", type=int, help="CLOCK_MONOTONIC when sending started (for latency_ms)")
    p.add_argument("--join-ns", type=int, help="CLOCK_MONOTONIC from which settle_s is measured")
    p.add_argument("--warmup-s", type=float, help="with --t0-ns and --send-ns: steady statistics from this long "
                   "after sending")
    p.add_argument("--lags", action="store_true", help="include every window's [t_s, lag_us, peak]")
    p.add_argument("--self-test", action="store_true")
    a = p.parse_args()
    if a.self_test:
        return self_test()
    if not a.recording:
        p.error("a recording is needed (or --self-test)")
    timeline = None if a.t0_ns is None else Timeline.nominal(a.t0_ns, a.rate)
    report = analyse_receivers(read(a.recording, a.format, a.channels), a.rate, a.expect_us, a.bound_us, a.max_lag_ms,
                               timeline, a.send_ns, a.join_ns, a.lags, a.warmup_s)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
