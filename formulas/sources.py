"""Citations shared by the formula modules: one line each, quoted in every derivation."""

KAPLAN_2020 = "Kaplan et al. 2020, Scaling Laws for Neural Language Models, arXiv:2001.08361, §2.1"
HOFFMANN_2022 = "Hoffmann et al. 2022, Training Compute-Optimal LLMs (Chinchilla), arXiv:2203.15556"
NARAYANAN_2021 = (
    "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters "
    "Using Megatron-LM, arXiv:2104.04473, §5.1"
)
CHOWDHERY_2022 = (
    "Chowdhery et al. 2022, PaLM, arXiv:2204.02311, Appendix B (model FLOPs utilization)"
)
KORTHIKANTI_2022 = (
    "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models, "
    "arXiv:2205.05198"
)
DEFINITION = "definition"
