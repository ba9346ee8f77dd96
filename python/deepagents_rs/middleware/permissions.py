"""`deepagents.middleware.permissions`: the older import path of `FilesystemPermission`."""

from .filesystem import FilesystemPermission

__all__ = ["FilesystemPermission"]
