"""autofuse: an operator-fusion compiler for Ascend NPUs (https://github.com/ -- see the
repository's README). The PyTorch front end is ``autofuse.torch``."""

__version__ = "0.1.0"
