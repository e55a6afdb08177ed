import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "lanesum",
    max_examples=int(os.environ.get("LANESUM_HYPOTHESIS_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("lanesum")
