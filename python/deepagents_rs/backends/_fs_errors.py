"""OS errors as `FileOperationError` codes, and symlink loops told apart from other failures."""

import errno

from deepagents_rs.backends.protocol import (
    FILE_NOT_FOUND,
    INVALID_PATH,
    IS_DIRECTORY,
    PERMISSION_DENIED,
    FileOperationError,
)

# NTFS reports a reparse-point cycle as winerror 1921 (ERROR_CANT_RESOLVE_FILENAME), and
# Python does not reliably translate that one to ELOOP.
_WINERROR_CANT_RESOLVE_FILENAME = 1921

# Tried in order, after "not found" and after the symlink-loop check (a loop can arrive
# as a RuntimeError, which no entry here would place): the first class that fits wins.
_CODE_BY_TYPE: tuple[tuple[type[BaseException] | tuple[type[BaseException], ...], FileOperationError], ...] = (
    (PermissionError, PERMISSION_DENIED),
    (IsADirectoryError, IS_DIRECTORY),
    ((NotADirectoryError, FileExistsError, ValueError), INVALID_PATH),
)


def _reports_loop(exc: BaseException | None) -> bool:
    """Whether `exc` is an OS error saying "too many levels of symbolic links"."""
    if not isinstance(exc, OSError):
        return False
    return exc.errno == errno.ELOOP or getattr(exc, "winerror", None) == _WINERROR_CANT_RESOLVE_FILENAME


def is_symlink_loop(exc: BaseException) -> bool:
    """Whether `exc` comes from a symlink loop, directly or wrapped.

    Python 3.12 and older turn the loop `Path.resolve()` meets into a RuntimeError whose
    cause or context is the OS error; the message is not something to match on.
    """
    if _reports_loop(exc):
        return True
    return isinstance(exc, RuntimeError) and (_reports_loop(exc.__cause__) or _reports_loop(exc.__context__))


def _map_exception_to_standard_error(exc: Exception) -> FileOperationError | None:
    """The code for a failed upload or download, or `None` when the type says nothing."""
    if isinstance(exc, FileNotFoundError):
        return FILE_NOT_FOUND
    if is_symlink_loop(exc):
        return INVALID_PATH
    for kinds, code in _CODE_BY_TYPE:
        if isinstance(exc, kinds):
            return code
    return None
