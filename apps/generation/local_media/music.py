"""A royalty-free music bed for the local engine's videos, synthesised with numpy (no samples
from anywhere): a four-chord pad, a plucked arpeggio and a soft kick at the tone's tempo, faded
in and out, normalised to -16 LUFS integrated (ITU-R BS.1770 K-weighting and gating, the level
the platforms normalise speech-led clips to) with peaks kept under -1.5 dBFS."""

from __future__ import annotations

import hashlib

import numpy as np

RATE = 48_000
TARGET_LUFS = -16.0
PEAK = 10 ** (-1.5 / 20)

#: (beats per minute, mood) by tone: what the bed plays and what a person would search for
MOODS: dict[str, tuple[int, str]] = {
    "professional": (96, "calm corporate piano"),
    "casual": (88, "lo-fi chill"),
    "friendly": (112, "upbeat acoustic pop"),
    "playful": (120, "bouncy ukulele"),
    "inspirational": (100, "uplifting cinematic"),
    "urgent": (128, "driving electronic"),
    "witty": (116, "quirky pizzicato"),
    "empathetic": (80, "soft ambient piano"),
}

# I - V - vi - IV in semitones above the key's root, as triads
_PROGRESSION = ((0, 4, 7), (7, 11, 14), (9, 12, 16), (5, 9, 12))


def mood_for(tone: str) -> tuple[int, str]:
    return MOODS.get((tone or "").lower(), MOODS["friendly"])


def _hz(semitone: float, root: float) -> float:
    return root * 2 ** (semitone / 12)


def synthesise(seconds: float, *, tone: str = "friendly", seed: int = 0, channels: int = 1) -> np.ndarray:
    """Mono float32 samples at ``RATE``, loudness-normalised for ``channels`` identical channels."""
    bpm, _ = mood_for(tone)
    n = round(seconds * RATE)
    t = np.arange(n, dtype=np.float64) / RATE
    beat = 60.0 / bpm
    bar = beat * 4
    digest = hashlib.sha256(f"music:{tone}:{seed}".encode()).digest()
    root = 220.0 * 2 ** ((digest[0] % 7) / 12)  # A3 and up to six semitones above
    out = np.zeros(n)
    chord_len = bar if seconds / bar >= 3 else bar / 2
    for k in range(int(np.ceil(seconds / chord_len))):
        chord = _PROGRESSION[k % 4]
        start, end = int(k * chord_len * RATE), min(n, int((k + 1) * chord_len * RATE))
        seg = t[start:end] - t[start]
        env = np.minimum(1.0, seg / 0.25) * np.minimum(1.0, (chord_len - seg) / 0.2)
        for semi in chord:  # pad: two slightly detuned sines per note
            f = _hz(semi - 12, root)
            out[start:end] += 0.12 * env * (np.sin(2 * np.pi * f * seg) + np.sin(2 * np.pi * f * 1.003 * seg))
        for step in range(int(chord_len / (beat / 2))):  # eighth-note arpeggio, plucked
            s0 = start + int(step * beat / 2 * RATE)
            if s0 >= end:
                break
            s1 = min(end, s0 + int(beat / 2 * RATE))
            st = t[s0:s1] - t[s0]
            f = _hz(chord[step % 3] + (12 if step % 4 == 3 else 0), root)
            out[s0:s1] += 0.18 * np.exp(-st * 9) * np.sin(2 * np.pi * f * st)
    for b in range(int(seconds / beat) + 1):  # soft kick on every beat
        s0 = int(b * beat * RATE)
        if s0 >= n:
            break
        s1 = min(n, s0 + int(0.18 * RATE))
        kt = t[s0:s1] - t[s0]
        out[s0:s1] += 0.35 * np.exp(-kt * 22) * np.sin(2 * np.pi * (50 + 60 * np.exp(-kt * 30)) * kt)
    fade_in, fade_out = min(n, int(0.3 * RATE)), min(n, int(0.8 * RATE))
    out[:fade_in] *= np.linspace(0, 1, fade_in)
    out[n - fade_out :] *= np.linspace(1, 0, fade_out)
    return normalise(out, channels=channels).astype(np.float32)


# BS.1770 K-weighting at 48 kHz: a high shelf, then the RLB high-pass
_SHELF = (
    np.array([1.53512485958697, -2.69169618940638, 1.19839281085285]),
    np.array([1.0, -1.69065929318241, 0.73248077421585]),
)
_HIGHPASS = (np.array([1.0, -2.0, 1.0]), np.array([1.0, -1.99004745483398, 0.99007225036621]))


def _k_gain(size: int) -> np.ndarray:
    """|H|^2 of the K-weighting filter at the bins of a real FFT of ``size`` samples."""
    z = np.exp(-1j * 2 * np.pi * np.fft.rfftfreq(size))  # z^-1 on the unit circle
    gain = np.ones_like(z, dtype=np.float64)
    for b, a in (_SHELF, _HIGHPASS):
        h = (b[0] + b[1] * z + b[2] * z * z) / (a[0] + a[1] * z + a[2] * z * z)
        gain *= np.abs(h) ** 2
    return gain


def loudness(samples: np.ndarray, channels: int = 2) -> float:
    """Integrated loudness (LUFS) of ``samples`` played on ``channels`` identical channels:
    400 ms blocks every 100 ms, K-weighted in the frequency domain (Parseval), absolute gate
    at -70 LUFS and relative gate 10 LU under the ungated mean."""
    block, hop = int(0.4 * RATE), int(0.1 * RATE)
    if len(samples) < block:
        samples = np.pad(samples, (0, block - len(samples)))
    starts = range(0, len(samples) - block + 1, hop)
    frames = np.stack([samples[s : s + block] for s in starts])
    spectrum = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    weight = _k_gain(block)
    # mean square of the filtered block: Parseval over the one-sided spectrum
    scale = np.full(spectrum.shape[1], 2.0)
    scale[0] = 1.0
    if block % 2 == 0:
        scale[-1] = 1.0
    power = (spectrum * weight * scale).sum(axis=1) / (block * block) * channels
    with np.errstate(divide="ignore"):
        levels = -0.691 + 10 * np.log10(np.maximum(power, 1e-20))
    kept = power[levels > -70]
    if not len(kept):
        return -70.0
    relative = -0.691 + 10 * np.log10(kept.mean()) - 10
    gated = kept[-0.691 + 10 * np.log10(kept) > relative]
    return float(-0.691 + 10 * np.log10(gated.mean()))


def normalise(samples: np.ndarray, target: float = TARGET_LUFS, channels: int = 1) -> np.ndarray:
    gain = 10 ** ((target - loudness(samples, channels)) / 20)
    out = samples * gain
    peak = float(np.abs(out).max()) if len(out) else 0.0
    if peak > PEAK:
        out *= PEAK / peak
    return out
