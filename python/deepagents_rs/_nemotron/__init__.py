"""The NVIDIA Nemotron 3 Ultra harness profile's parts; the profile itself, its registration and
the names deepagents exports are `deepagents_rs.profiles.harness._nvidia_nemotron_3_ultra`.

- `texts`: what the model is shown (deepagents' words); `patterns`: what the middleware looks
  for in messages; `conversation`: how they read a conversation;
- `tool_repairs`, `model_repairs`: repairs around tool and model calls; `budget`: the turn's
  step budget; `nudges`: notes before model calls; `guards`: final-answer checks.
"""
