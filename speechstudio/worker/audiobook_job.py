"""The Speak page's audiobook (Qt-free): a text, Markdown or EPUB file read into one audio file per
chapter and an ``.m4b`` with chapter marks, as ``speechstudio audiobook`` makes it
(``tts.audiobook.make_audiobook``); a rerun into the same folder keeps the chapters already done."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from speechstudio.tts.audiobook import check_outputs, make_audiobook
from speechstudio.tts.documents import read_book
from speechstudio.tts.family import SynthesisSettings
from speechstudio.worker.finetune_jobs import run_with_progress
from speechstudio.worker.jobs import Job
from speechstudio.worker.status import Status


class AudiobookJob(Job):
    """Yields ``Status`` and ``AudiobookProgress`` per sentence; cancel stops after the sentence (finished
    chapters stay); ``settings``: ``SynthesisSettings`` keywords; ``result``: ``AudiobookResult``."""

    def __init__(self, document: Path, out_dir: Path, voice: str | None = None, fmt: str = "flac",
                 device: str = "auto", **settings) -> None:
        super().__init__()
        self.document, self.out_dir, self.voice, self.fmt = Path(document), Path(out_dir), voice, fmt
        self.device, self.settings = device, settings

    title = "audiobook of {document.name}"

    def run(self, models) -> Iterator[object]:
        yield Status(f"reading {self.document.name} ...")
        # a file of the user's own, another book's folder: refused at once
        check_outputs(read_book(self.document), self.out_dir, self.fmt, document=self.document)
        yield Status(f"loading voice {self.voice or '(default)'} ...")
        voice, _message = models.voice(self.voice, self.device)
        settings = SynthesisSettings(**self.settings)

        def work(report):
            return make_audiobook(voice, self.document, self.out_dir, self.fmt, settings, progress=report)

        self.result = yield from run_with_progress(work, self.cancel)
