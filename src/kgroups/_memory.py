"""Memory accounting: nothing O(n^2) is allocated without checking it fits."""

from __future__ import annotations

import os

# Use at most this fraction of the memory that is free when we ask.
MEMORY_FRACTION = 0.8


def _meminfo(field, pages):
    """Bytes of the ``/proc/meminfo`` line ``field`` (Linux), else ``os.sysconf(pages)``
    pages, else effectively unlimited (an OS that tells neither)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf(pages) * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - exotic OS
        return 2**62


def available_memory():
    """Bytes of memory available now (Linux ``MemAvailable``, else free physical pages)."""
    return _meminfo("MemAvailable", "SC_AVPHYS_PAGES")


def total_memory():
    """Bytes of physical memory of the machine (Linux ``MemTotal``), a constant."""
    return _meminfo("MemTotal", "SC_PHYS_PAGES")


def fits(nbytes):
    """Whether ``nbytes`` fit in the usable share of available memory."""
    return nbytes <= MEMORY_FRACTION * available_memory()


def check_fits(nbytes, what, alternative):
    """Raise a clear ValueError (never a raw MemoryError) when ``nbytes`` do not fit.

    The message names the bytes needed, the bytes available and what to use instead.
    """
    avail = available_memory()
    if nbytes > MEMORY_FRACTION * avail:
        raise ValueError(
            f"{what} needs {nbytes / 2**30:.2f} GiB ({nbytes} bytes) but only "
            f"{MEMORY_FRACTION * avail / 2**30:.2f} GiB may be used ({MEMORY_FRACTION:.0%} "
            f"of the {avail / 2**30:.2f} GiB available); use {alternative} instead"
        )
