"""Counts the driver calls of a LLaMA model's last decode step in a mock
driver's log (test/GPU/CUDA/Inputs/mock-libcuda.c prints one line a call):
the launches and stream synchronizations between the last two downloads of
the logits (`cuMemcpyAsync <bytes>`), printed as one line for FileCheck."""

import sys


def main():
    log, logits_bytes = sys.argv[1], sys.argv[2]
    with open(log) as f:
        calls = [line.split()[1:] for line in f if line.startswith("mock: ")]
    downloads = [i for i, call in enumerate(calls)
                 if call == ["cuMemcpyAsync", logits_bytes]]
    if len(downloads) < 2:
        sys.exit(f"fewer than two downloads of {logits_bytes} B in {log}")
    step = [call[0] for call in calls[downloads[-2] + 1:downloads[-1] + 1]]
    print(f"decode step: {step.count('cuLaunchKernel')} launches, "
          f"{step.count('cuStreamSynchronize')} stream synchronizations")


if __name__ == "__main__":
    main()
