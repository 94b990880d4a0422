"""Every generator is built from its family's parameter set, declared once in :mod:`accelgen.params`: positionally
(``MAC(params)``), or as the schema's fields by keyword (validated by the schema, ``None`` counting as left out),
never both; its latency is the parameter set's."""

import pytest

from accelgen.params import SCHEMAS
from accelgen.params.fan import FANParams
from accelgen.params.mac import MACParams
from accelgen.rtl import (ART, FAN, MAC, AdderTree, Benes, DotProduct, FanLinear, FlexDPE, LinearReduction,
                          SystolicArray, TensorDashPE, TensorDashScheduler, TensorDashTile)

GENERATORS = [MAC, SystolicArray, FAN, FanLinear, AdderTree, ART, LinearReduction, DotProduct, Benes, FlexDPE,
              TensorDashScheduler, TensorDashPE, TensorDashTile]


def test_every_schema_has_its_generator():
    assert {gen.params_model.block: gen.params_model for gen in GENERATORS} == SCHEMAS


@pytest.mark.parametrize("gen", GENERATORS, ids=lambda g: g.__name__)
def test_defaults_are_the_schemas(gen):
    schema = gen.params_model
    assert gen().params == schema()
    assert gen(**{name: None for name in schema.model_fields}).params == schema()   # None: left out


@pytest.mark.parametrize("gen", GENERATORS, ids=lambda g: g.__name__)
def test_takes_its_parameter_set_or_its_fields(gen):
    params = gen.params_model()
    built = gen(params)
    assert built.params is params and gen.from_params(params).params is params
    assert gen(**params.model_dump()).params == params
    assert built.latency == params.latency


@pytest.mark.parametrize("gen", GENERATORS, ids=lambda g: g.__name__)
def test_refuses_both_and_unknown_names(gen):
    params = gen.params_model()
    with pytest.raises(TypeError, match=r"not both \(got \w+ with it\)"):
        gen(params, **{next(iter(gen.params_model.model_fields)): None})
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'bogus'; allowed: "):
        gen(bogus=1)


def test_refuses_another_familys_parameter_set():
    with pytest.raises(TypeError, match=r"MAC\(\) takes a MACParams, not FANParams"):
        MAC(FANParams())
    with pytest.raises(TypeError, match=r"FAN\(\) takes a FANParams, not ARTParams"):
        FAN(SCHEMAS["art"]())


def test_keyword_validation_says_type_or_value():
    with pytest.raises(TypeError, match=r"mac\.a_width: '8' is not allowed; expected an integer in 1\.\.32"):
        MAC(a_width="8")
    with pytest.raises(ValueError, match=r"mac\.a_width: 0 is not allowed; expected an integer in 1\.\.32"):
        MAC(a_width=0)
    assert MAC(dtype="bf16").params == MACParams(dtype="bf16")


def test_tensordash_options_beside_the_parameter_set():
    params = SCHEMAS["tensordash_pe"](lanes=4, depth=2)
    pe = TensorDashPE(params, options=[(0, 0), (1, 1)])
    assert pe.params is params and pe.options == ((0, 0), (1, 1))
    assert TensorDashPE(lanes=4, depth=2, options=[(0, 0), (1, 1)]).options == pe.options
