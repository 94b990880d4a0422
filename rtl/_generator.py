"""What the top-level generators share: they are built from a validated parameter set.

A generator takes its parameter set, ``MAC(MACParams(dtype="bf16"))``, or the same parameters as
keywords, ``MAC(dtype="bf16")``, validated by its schema (:mod:`accelgen.params`: the parameters are
declared and documented there, once). A keyword given as ``None`` counts as left out.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..params.base import BlockParams

__all__ = ["FromParams"]


class FromParams:
    """Mixin of the top-level generators: ``params_model`` is the family's schema; ``latency`` is the
    parameter set's own unless the generator states another."""

    params_model: ClassVar[type[BlockParams]]
    params: BlockParams

    @classmethod
    def validated(cls, params: BlockParams | None, kwargs: dict[str, Any]) -> BlockParams:
        """The parameter set of a constructor call: ``params`` itself (of exactly :attr:`params_model`), or
        ``kwargs`` validated by the schema (:meth:`~accelgen.params.base.BlockParams.from_arguments`:
        ``TypeError`` for a wrongly typed value or an unknown name, ``ValueError`` for a value that cannot
        be built). Both at once is a ``TypeError``."""
        model = cls.params_model
        if params is None:
            unknown = [name for name in kwargs if name not in model.model_fields]
            if unknown:
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {unknown[0]!r}; allowed: "
                                f"{', '.join(model.model_fields)}")
            return model.from_arguments(**kwargs)
        if kwargs:
            raise TypeError(f"{cls.__name__}() takes a {model.__name__} or keyword parameters, not both "
                            f"(got {', '.join(kwargs)} with it)")
        if type(params) is not model:
            raise TypeError(f"{cls.__name__}() takes a {model.__name__}, not {params!r}")
        return params

    @classmethod
    def from_params(cls, params: BlockParams):
        """The generator of a validated parameter set (``cls(params)``)."""
        return cls(params)

    @property
    def latency(self) -> int:
        return self.params.latency
