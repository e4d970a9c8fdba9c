"""What-ifs: ranges, distributions, sweeps, sensitivity and comparisons on the same plans."""
