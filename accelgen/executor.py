"""One executor for every fan-out: synthesis sweeps, cosim regressions and design-space exploration.

``Executor(jobs=N)`` runs tasks in ``N`` local worker processes (``concurrent.futures``); with
``threads=True`` in ``N`` threads, for tasks that start and supervise their own processes (a
regression test runs its simulator in its own process group, with a timeout); with
``jobs=1`` in this process, one after the other. ``Executor(scheduler="tcp://host:port")`` sends
them to a Dask cluster instead, so a user who outgrows one machine adds workers, not tools.

:meth:`Executor.run` has the hooks long work needs: ``resume(item)`` returns a result recorded
by an earlier, interrupted run (the task is not run again), ``on_result(index, result, reused)``
sees every result as it arrives (to record it at once and to advance a progress bar). An error or
an interrupt (``KeyboardInterrupt``) cancels what has not started and is raised to the caller;
results already handed to ``on_result`` stay recorded.

Tasks and their results cross process boundaries: ``fn`` must be a module-level function and items
and results picklable. ``shared`` is one large argument common to every task (a DSE plan): it is
sent once per worker on Dask (``scatter``) and called as ``fn(shared, item)``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from concurrent.futures import (FIRST_COMPLETED, Executor as _FuturesExecutor, ProcessPoolExecutor,
                                ThreadPoolExecutor, wait)
from typing import Any, Callable, Iterable, Iterator, Sequence

from .errors import ConfigError

_NOTHING = object()


#: How long a cancelled worker process gets to exit on SIGTERM before it is killed.
WORKER_EXIT_S = 3.0


def _end_workers(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and end the pool's worker processes now, a second Ctrl-C meanwhile ignored.

    ``shutdown(wait=False)`` alone leaves the workers finishing their tasks, and the interpreter's exit handler
    then joins them: a second Ctrl-C there left the process waiting forever (issue 51). The workers are ended
    (SIGTERM, then SIGKILL after :data:`WORKER_EXIT_S`), so that join returns at once. ``_processes`` is the
    pool's own table of its workers (Python 3.14 adds ``terminate_workers()`` for this)."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if in_main else None
    try:
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in workers:
            with contextlib.suppress(Exception):
                proc.terminate()
        deadline = time.monotonic() + WORKER_EXIT_S
        for proc in workers:
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.is_alive():
                proc.kill()
                proc.join(1.0)
    finally:
        if in_main:
            signal.signal(signal.SIGINT, previous)


class Executor:
    """Local processes, local threads, this process, or a Dask scheduler (see the module docstring)."""

    def __init__(self, jobs: int | None = None, scheduler: str | None = None, *, threads: bool = False,
                 option: str = "--scheduler"):
        if jobs is not None and (not isinstance(jobs, int) or jobs < 1):
            raise ConfigError([("--jobs", f"{jobs!r} is not allowed; expected an integer >= 1")])
        self.jobs = jobs or os.cpu_count() or 1
        self.scheduler = scheduler
        self.threads = threads
        self.option = option
        self._client = None
        self._pool: _FuturesExecutor | None = None

    @property
    def label(self) -> str:
        if self.scheduler:
            return f"Dask scheduler {self.scheduler}"
        if self.threads:
            return f"{self.jobs} local thread{'s' if self.jobs != 1 else ''}"
        return f"{self.jobs} local process{'es' if self.jobs != 1 else ''}"

    # ------------------------------------------------------------------ lifetime

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(cancel=exc_type is not None)

    def close(self, cancel: bool = False) -> None:
        if self._pool is not None:
            if cancel and isinstance(self._pool, ProcessPoolExecutor):
                _end_workers(self._pool)
            else:
                self._pool.shutdown(wait=not cancel, cancel_futures=cancel)
            self._pool = None
        if self._client is not None:
            self._client.close()
            self._client = None

    def _dask(self):
        if self._client is None:
            try:
                from dask.distributed import Client  # optional dependency: accelgen[dask]
            except ImportError:
                raise ConfigError([(self.option, "needs dask.distributed: pip install 'dask[distributed]'")]) from None
            try:
                self._client = Client(self.scheduler, timeout="20s")
            except (OSError, TimeoutError) as exc:
                raise ConfigError([(self.option, f"cannot connect to {self.scheduler!r}: {exc}")]) from None
        return self._client

    def _local(self) -> _FuturesExecutor:
        if self._pool is None:
            kind = ThreadPoolExecutor if self.threads else ProcessPoolExecutor
            self._pool = kind(max_workers=self.jobs)
        return self._pool

    # ------------------------------------------------------------------ work

    def map_unordered(self, fn: Callable, items: Sequence, *, shared: Any = _NOTHING) -> Iterator[tuple[int, Any]]:
        """``(index, fn(item))`` for every item, in the order they finish."""
        items = list(items)
        if not items:
            return
        args = (lambda item: (item,)) if shared is _NOTHING else (lambda item: (shared, item))
        if self.scheduler:
            yield from self._map_dask(fn, items, shared)
            return
        if self.jobs == 1 and not self.threads:
            for i, item in enumerate(items):
                yield i, fn(*args(item))
            return
        pool = self._local()
        futures = {pool.submit(fn, *args(item)): i for i, item in enumerate(items)}
        try:
            pending = set(futures)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield futures[fut], fut.result()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise

    def _map_dask(self, fn, items, shared) -> Iterator[tuple[int, Any]]:
        from dask.distributed import as_completed
        client = self._dask()
        if shared is _NOTHING:
            futures = {client.submit(fn, item, pure=False): i for i, item in enumerate(items)}
        else:
            shared_f = client.scatter(shared, broadcast=True)
            futures = {client.submit(fn, shared_f, item, pure=False): i for i, item in enumerate(items)}
        try:
            for fut in as_completed(list(futures)):
                yield futures[fut], fut.result()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise

    def run(self, fn: Callable, items: Iterable, *, shared: Any = _NOTHING,
            resume: Callable[[Any], Any] | None = None,
            on_result: Callable[[int, Any, bool], None] | None = None) -> list:
        """Every item's result, in item order.

        ``resume(item)`` returns a recorded result (or ``None``: run it); ``on_result(index, result,
        reused)`` is called once per item, reused results first, then as tasks finish.
        """
        items = list(items)
        results: list = [None] * len(items)
        todo = []
        for i, item in enumerate(items):
            prev = resume(item) if resume else None
            if prev is not None:
                results[i] = prev
                if on_result:
                    on_result(i, prev, True)
            else:
                todo.append(i)
        for j, res in self.map_unordered(fn, [items[i] for i in todo], shared=shared):
            results[todo[j]] = res
            if on_result:
                on_result(todo[j], res, False)
        return results
