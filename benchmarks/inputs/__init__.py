"""Document readers: pages per second and fidelity per format and structure."""
