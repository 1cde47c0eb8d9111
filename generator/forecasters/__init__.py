"""The hub's own forecasters, written as ordinary forecast files and validated like any submission.

- ``baselines``: Always 0 / 1 / 0.5 at a round's opening; Imputed, Naive and the crowd aggregates
  after its due time
- ``llm``: the LLM forecaster on an OpenAI-compatible endpoint (``prescient forecast llm``)
- ``agents``: the hub's Arena agents (``prescient forecast llm --bets``, the nightly's ``[arena] agent_models``)
- ``agent_decisions``: what an agent is shown, how its answer is read, and its decisions judged as a bet file
- ``synthetic``: forecasters of known skill over the ``sim`` world, for the demo
- ``synthetic_views``: the demo's Arena bets and Daily Oracle-style question set
"""
