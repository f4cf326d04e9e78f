"""Type stubs of the extension module (Rust, PyO3). Use the wrappers in ``webcorpus``."""

from typing import List, Optional, Sequence, Tuple, Union

VERSION: str

def extract_json(
    html: Union[str, bytes, bytearray],
    url: Optional[str] = None,
    extractor: str = "default",
    comments: bool = False,
    language: Optional[str] = None,
    trace: bool = False,
) -> str: ...

class SiteModel:
    @staticmethod
    def learn(
        pages: Sequence[Tuple[str, Union[str, bytes, bytearray]]],
        host: Optional[str] = None,
        language: Optional[str] = None,
    ) -> "SiteModel": ...
    @staticmethod
    def load(path: str) -> "SiteModel": ...
    def save(self, path: str) -> None: ...
    def extract_json(
        self,
        html: Union[str, bytes, bytearray],
        url: Optional[str] = None,
        extractor: str = "default",
        comments: bool = False,
        trace: bool = False,
    ) -> str: ...
    @property
    def host(self) -> str: ...
    @property
    def sample_pages(self) -> int: ...
    @property
    def learned(self) -> bool: ...
    def summary(self) -> str: ...

class Onion:
    def __init__(self, n: Optional[int] = None, threshold: Optional[float] = None) -> None: ...
    def keep(self, paragraphs: List[str]) -> List[bool]: ...
    def __len__(self) -> int: ...
