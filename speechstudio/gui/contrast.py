"""Text colours that stay readable on the current background: the WCAG 2.x contrast ratio
(https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio; AA for normal text: 4.5:1). Qt-free."""
from __future__ import annotations

AA = 4.5  # WCAG 2.1 success criterion 1.4.3, normal text
GRAPHICS = 3.0  # WCAG 2.1 success criterion 1.4.11, non-text contrast (a waveform, a meter)


def luminance(color: str) -> float:
    """Relative luminance of ``"#rrggbb"`` (0 black .. 1 white)."""
    c = color.lstrip("#")
    srgb = [int(c[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in srgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(fg: str, bg: str) -> float:
    """WCAG contrast ratio of ``fg`` on ``bg`` (1 .. 21)."""
    a, b = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def readable(candidates: tuple[str, ...], bg: str) -> str:
    """The first of ``candidates`` with at least :data:`AA` contrast on ``bg``, else the one with the most."""
    for c in candidates:
        if contrast(c, bg) >= AA:
            return c
    return max(candidates, key=lambda c: contrast(c, bg))
