"""A machine's identity: what decides whether two results, a cached peak or a cached noise floor
belong to the same hardware.

The model name a virtual machine shows is generic: this project's Zen 3 and its AVX-512 AMD host
both read "AMD EPYC", and a cloud's Intel guests read "Intel(R) Xeon(R) Processor" whatever the
generation. Pooled under one name, a 2x difference in peak is read as noise, and one host's
cached peak divides the other's throughput.
"""

from __future__ import annotations

from twinbench.machine import environment

# Abridged /proc/cpuinfo of two processors each (the first block is the one read).
ZEN3 = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 1
model name\t: AMD EPYC
flags\t\t: fpu sse4_2 avx avx2 fma
processor\t: 1
cpu family\t: 25
model\t\t: 1
model name\t: AMD EPYC
flags\t\t: fpu sse4_2 avx avx2 fma
"""
AVX512_AMD = ZEN3.replace("model\t\t: 1", "model\t\t: 17").replace("fma", "fma avx512f avx512_bf16")
ARM = """processor\t: 0
Features\t: fp asimd sve
CPU implementer\t: 0x41
CPU part\t: 0xd40
"""


def env_of(cpuinfo: str, cores: int = 2) -> dict:
    model, flags, cpu_id = environment.parse_cpuinfo(cpuinfo)
    isa = sorted(f for f in environment.RELEVANT_ISA_FLAGS if f in flags)
    return {
        "cpu_model": model or "aarch64",
        "cpu_id": cpu_id,
        "isa_flags": isa,
        "logical_cores": cores,
    }


def test_family_and_model_are_read_from_the_first_processor_on_x86_and_arm():
    assert environment.parse_cpuinfo(ZEN3) == (
        "AMD EPYC",
        {"fpu", "sse4_2", "avx", "avx2", "fma"},
        "family 25 model 1",
    )
    model, flags, cpu_id = environment.parse_cpuinfo(ARM)
    assert (model, cpu_id) == (None, "implementer 0x41 part 0xd40")
    assert {"asimd", "sve"} <= flags


def test_two_hosts_with_one_model_name_are_two_machines():
    zen3, zen5 = (
        environment.machine_fingerprint(env_of(ZEN3)),
        environment.machine_fingerprint(env_of(AVX512_AMD)),
    )
    assert zen3 != zen5
    assert zen3 == "AMD EPYC (family 25 model 1, avx2) x2"
    assert zen5 == "AMD EPYC (family 25 model 17, avx512_bf16) x2"


def test_a_hypervisor_that_hides_avx512_makes_another_machine():
    hidden = AVX512_AMD.replace(" avx512f avx512_bf16", "")
    assert environment.machine_fingerprint(env_of(hidden)) != environment.machine_fingerprint(
        env_of(AVX512_AMD)
    )


def test_the_same_cpu_is_the_same_machine_and_the_core_count_still_counts():
    assert environment.machine_fingerprint(env_of(ZEN3)) == environment.machine_fingerprint(
        env_of(ZEN3)
    )
    assert environment.machine_fingerprint(env_of(ZEN3, 4)).endswith(" x4")


def test_this_machine_records_its_family_and_model_in_its_fingerprint():
    described = environment.describe()
    assert described["fingerprint"] == environment.machine_fingerprint(described)
    if described["cpu_id"]:
        assert described["cpu_id"] in described["fingerprint"]
