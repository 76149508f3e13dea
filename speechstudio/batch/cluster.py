"""Batch transcription on a Ray cluster (``transcribe --cluster ray[://HOST:PORT]``, ``pip install
'speechstudio[cluster]'``): Ray actors transcribe by path, the driver resumes and writes as a local batch does;
a file whose worker is lost goes back to the queue (:data:`MAX_TRIES`). docs/cluster.md."""
from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path

from speechstudio.batch import resume
from speechstudio.batch.request import TranscriptionRequest
from speechstudio.asr.device import cpu_cores
from speechstudio.batch.run import (FATAL_PREFIX, BatchEvent, InputItem, failed_event, plan_outputs, transcribe_whole,
                                    write_outputs)
from speechstudio.errors import SpeechStudioError, UsageError

EXTRA = "pip install 'speechstudio[cluster]'"
MAX_TRIES = 3                 # attempts of one file whose worker is lost each time
CONNECT_TIMEOUT_S = 5.0       # a ray:// address that does not answer within this is unreachable
IN_FLIGHT = 2                 # files queued on a worker: the next is there as soon as one finishes


def parse_cluster(spec: str) -> str | None:
    """The Ray address of ``--cluster``: ``ray`` -> ``None`` (a local Ray on this machine),
    ``ray://HOST:PORT`` -> itself (a running cluster's Ray Client port, 10001 by default).
    Raises ``UsageError`` for anything else."""
    spec = spec.strip()
    if spec == "ray":
        return None
    host, _, port = spec.removeprefix("ray://").rpartition(":")
    if spec.startswith("ray://") and host and port.isdigit():
        return spec
    raise UsageError(f"--cluster {spec}: expected ray (a local Ray on this machine) or ray://HOST:PORT")


class Transcriber:
    """One Ray actor: the request's recogniser, loaded once, transcribing files by path.

    A load error is kept and returned by :meth:`ready` (one line), not raised (Ray would print the
    actor's traceback)."""

    def __init__(self, request: TranscriptionRequest, debug: bool = False) -> None:
        self.request, self.debug = request, debug
        self.message, self.error, self.recognizer, self.labeller = "", None, None, None
        try:
            self.recognizer, self.message = request.load()
            request.check(self.recognizer)
            self.labeller = request.speakers.labeller() if request.speakers is not None else None
        except SpeechStudioError as e:
            self.error = e
        except Exception as e:  # noqa: BLE001 - said in one line by the driver
            self.error = SpeechStudioError(f"cannot load the model on a worker: {type(e).__name__}: {e}")

    def ready(self) -> tuple[int, str, str, SpeechStudioError | None]:
        """``(pid, host name, model line, the load error or None)``."""
        return os.getpid(), socket.gethostname(), self.message, self.error

    def transcribe(self, path: str, root: str | None, index: int):
        """``("done", FileTranscript, seconds)`` or ``("failed", reason, seconds)`` for one input."""
        item = InputItem(Path(path), Path(root) if root is not None else None)
        t0 = time.perf_counter()
        try:
            done = transcribe_whole(item, self.recognizer, self.request, self.labeller, index)
            return "done", done, time.perf_counter() - t0   # the driver is told when it is done
        except Exception as e:  # noqa: BLE001 - one file never ends the batch
            return "failed", failed_event(item, index, e, 0.0, self.debug).reason, time.perf_counter() - t0


class RayPool:
    """The driver's side: Ray connected to ``address`` (:func:`parse_cluster`; ``None``: a local Ray on ``num_cpus``
    cores, all by default; a Ray already initialised is used as it is), then :meth:`run` per batch; ``worker_cores``
    per worker on CPU. Raises ``UsageError``: Ray not installed, the address unreachable or Ray not starting."""

    def __init__(self, address: str | None = None, *, worker_cores: int = 1, num_cpus: int | None = None,
                 debug: bool = False) -> None:
        try:
            import ray
        except ImportError:
            raise UsageError(f"--cluster needs Ray: {EXTRA}") from None
        self.ray, self.address, self.worker_cores, self.debug = ray, address, max(1, int(worker_cores)), debug
        self.workers: dict = {}           # actor -> (pid, host) of the workers ready now
        self.model_line = ""
        self._key = None                  # the request the workers were loaded for
        self._started = False
        if address is not None:
            host, port = address.removeprefix("ray://").rsplit(":", 1)
            try:
                socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S).close()
            except OSError as e:
                raise UsageError(f"--cluster {address}: cannot reach the Ray cluster "
                                 f"({e.strerror or type(e).__name__})") from None
        if ray.is_initialized():
            return
        try:
            ray.init(address=address, num_cpus=None if address else (num_cpus or cpu_cores()),
                     include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
        except Exception as e:  # noqa: BLE001 - Ray's many connection errors, said in one line
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise UsageError(f"--cluster {address or 'ray'}: cannot start Ray ({first})") from None
        self._started = True

    def close(self) -> None:
        """Stop this pool's workers (and the local Ray it started)."""
        for actor in list(self.workers):
            self.ray.kill(actor)
        self.workers.clear()
        if self._started:
            self.ray.shutdown()
            self._started = False

    def __enter__(self) -> RayPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, items: Iterable[InputItem], request: TranscriptionRequest, *,
            cancel: threading.Event | None = None) -> Iterator[BatchEvent]:
        """Transcribe ``items`` as ``request`` asks and write their outputs; yields ``skipped`` events
        first, then ``done`` / ``failed`` in the order files finish (no ``start`` / ``segment`` events).
        Raises ``SpeechStudioError`` (the model cannot load on the workers) before anything is written.
        ``cancel``: set it to stop; files not finished are not written."""
        items = list(items)
        plan = plan_outputs(items, request.formats, Path(request.output_dir) if request.output_dir else None)
        todo: dict[int, tuple[dict, tuple]] = {}
        wanted = resume.asked(request)
        for index, item in enumerate(items):
            work = resume.plan_work(item.path, plan[index], request.overwrite, asked=wanted)
            targets, said = work.todo, work.notes
            if not targets:
                yield BatchEvent("skipped", item, index, reason=work.skip, outputs=tuple(plan[index].values()),
                                 warnings=said)
            elif str(item.path) == "-":
                yield BatchEvent("failed", item, index, reason="standard input cannot go to a cluster: give files")
            else:
                todo[index] = (targets, said)
        order = list(todo)
        for n, kind, result, compute_s in self.results([items[i] for i in order], request, cancel=cancel):
            index = order[n]
            item, (targets, said) = items[index], todo[index]
            t0 = time.perf_counter() - compute_s         # wall_s: the worker's seconds and the writing
            if kind == "failed":
                yield BatchEvent("failed", item, index, reason=result, wall_s=compute_s)
                continue
            event = write_outputs(item, index, result, targets, request, t0, said, self.debug)
            yield event
            if event.reason.startswith(FATAL_PREFIX):   # the next files would fail the same way
                return

    def results(self, items: list[InputItem], request: TranscriptionRequest, *,
                cancel: threading.Event | None = None) -> Iterator[tuple[int, str, object, float]]:
        """Transcribe ``items`` on the workers, writing nothing: yields ``(position in items, "done",
        FileTranscript, worker seconds)`` or ``(position, "failed", reason, seconds)`` once per item, as
        each finishes. Workers stay loaded for the next call with the same model settings (until
        :meth:`close`). Raises ``SpeechStudioError`` (the model cannot load on the workers)."""
        ray = self.ray
        if not items:
            return
        key = request.replace(formats=("txt",), output_dir=None, overwrite=False, subtitles=None)
        if key != self._key:                # other model settings: other workers
            for actor in list(self.workers):
                ray.kill(actor)
            self.workers.clear()
            self._key = key
        have = ray.cluster_resources()      # a worker per GPU (not for a CPU request), else per worker_cores CPUs
        if int(have.get("GPU", 0)) and request.device != "cpu":
            count, resources = int(have.get("GPU", 0)), {"num_gpus": 1, "num_cpus": 1}
        else:
            count, resources = max(1, int(have.get("CPU", 1)) // self.worker_cores), {"num_cpus": self.worker_cores}
        count = min(count, len(items))
        # the driver's BLAS threads on the workers (Ray gives an actor OMP_NUM_THREADS=1): OpenBLAS sums
        # faster-whisper's mel filter bank in an order set by its thread count, which moves word probabilities
        blas = {"env_vars": {"OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", str(cpu_cores()))}}
        actor_class = ray.remote(Transcriber).options(max_restarts=0, max_task_retries=0, runtime_env=blas,
                                                      **resources)
        starting = {}                       # ready() ref -> actor
        budget = [count * MAX_TRIES]       # workers that may still be started (replacements included)

        def start_worker() -> None:
            if budget[0] > 0:
                budget[0] -= 1
                actor = actor_class.remote(request, self.debug)
                starting[actor.ready.remote()] = actor

        for _ in range(count - len(self.workers)):
            start_worker()
        todo = deque(range(len(items)))
        inflight: dict = {}                 # transcribe ref -> (actor, position)
        busy: dict = {}                     # actor -> files in flight on it
        tries: dict[int, int] = {}
        finished: set[int] = set()

        def feed(actor) -> None:
            while todo and busy.get(actor, 0) < IN_FLIGHT:
                n = todo.popleft()
                item = items[n]
                ref = actor.transcribe.remote(str(item.path), None if item.root is None else str(item.root), n)
                inflight[ref] = (actor, n)
                busy[actor] = busy.get(actor, 0) + 1

        def lose(actor) -> None:
            if self.workers.pop(actor, None) is not None or actor in busy:
                busy.pop(actor, None)
                start_worker()

        for actor in list(self.workers):
            feed(actor)
        complete = False
        try:
            while inflight or (todo and (starting or self.workers)):
                if cancel is not None and cancel.is_set():
                    return
                waiting = list(starting) + list(inflight)
                if not waiting:
                    break
                ready, _ = ray.wait(waiting, num_returns=1, timeout=0.5)
                for ref in ready:
                    if ref in starting:
                        actor = starting.pop(ref)
                        try:
                            pid, host, message, error = ray.get(ref)
                        except ray.exceptions.RayActorError:
                            start_worker()
                            continue
                        if error is not None:
                            raise error
                        self.workers[actor] = (pid, host)
                        self.model_line = self.model_line or message
                        feed(actor)
                        continue
                    actor, n = inflight.pop(ref)
                    busy[actor] = busy.get(actor, 1) - 1
                    try:
                        kind, result, compute_s = ray.get(ref)
                    except ray.exceptions.RayActorError:     # the worker died: the file goes back
                        lose(actor)
                        tries[n] = tries.get(n, 0) + 1
                        if tries[n] >= MAX_TRIES:
                            finished.add(n)
                            yield n, "failed", (f"{items[n].path}: its worker was lost {tries[n]} times "
                                                "(out of memory? a node gone?)"), 0.0
                        else:
                            todo.appendleft(n)
                        for other in list(self.workers):
                            feed(other)
                        continue
                    feed(actor)
                    if n not in finished:                   # once per item
                        finished.add(n)
                        yield n, kind, result, compute_s
            for n in todo:                                  # no worker left to take them
                yield n, "failed", f"{items[n].path}: no Ray worker could be started for it", 0.0
            complete = True
        finally:                            # stopped early: busy workers hold files nobody wants
            stale = list(starting.values()) + ([] if complete else list(self.workers))
            for actor in stale:
                ray.kill(actor)
                self.workers.pop(actor, None)


_pools: dict[str | None, RayPool] = {}


def transcribe_on(spec: str, path: str | os.PathLike, request: TranscriptionRequest):
    """``speechstudio.transcribe(path, cluster=spec)``: one file on a worker of the pool kept for
    ``spec`` (:func:`parse_cluster`) in this process, whose workers stay loaded between calls with the
    same model settings. Returns ``(iterator of Segment, TranscriptInfo)`` as the local path does.
    Raises ``UsageError`` (see :class:`RayPool`) and ``SpeechStudioError`` (the file failed, its reason)."""
    address = parse_cluster(spec)
    pool = _pools.get(address) or _pools.setdefault(address, RayPool(address))
    ((_, kind, result, _),) = pool.results([InputItem(Path(path))], request)
    if kind == "failed":
        raise SpeechStudioError(result)
    return iter(result.segments), result.info
