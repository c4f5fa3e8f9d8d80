"""The training loop of pytorch/examples `mnist/main.py`, around each twinbench network.

    python -m benchmarks.ports.torch_examples <model> --cpus N [--max-steps S] [--epochs E]

Kept from the example: a `DataLoader` over a `TensorDataset`, `train()` with
`model.train()`, `zero_grad` / forward / loss / `backward` / `step` per batch and `loss.item()`
every `log_interval` (10) batches, and `test()` after every epoch under `torch.no_grad()`
summing the loss and counting correct predictions, with its own `test_batch_size` (1000).
Changes, each one demanded by the comparison:
- the network is the workload's torch module (models/<name>.py) and the optimizer is the one
  twinbench builds from conf/model/<name>.yaml
  (frameworks.torch_native.optimizers.make_optimizer), so
  both sides do the same arithmetic; the example's Adadelta + StepLR is not the 2017 recipe.
- the loss is F.cross_entropy on logits (the example's log_softmax + nll_loss, fused), or
  F.binary_cross_entropy_with_logits for a sigmoid output, summed with the configured weights
  for a model with two heads (textgen).
- `shuffle=True` on the training loader: the example passes it only on an accelerator; on a CPU
  it would train in a fixed order and skip the per-epoch permutation twinbench pays for.
- data: twinbench's arrays (benchmarks.ports.harness) instead of torchvision's MNIST; cifar10_cnn
  augments each image in the Dataset, as torchvision's `RandomCrop(32, padding=3,
  padding_mode='edge')` + `RandomHorizontalFlip()` would (torchvision is not installed).
- no validation pass where the workload's conf says `validate: false` (the text generators,
  whose 2017 Keras scripts ran none).
- gpt is not trained here: its users' loop is nanoGPT's (benchmarks/ports/nanogpt_train.py).
- no --save-model, no printing of the test summary (outside the epoch's work).
"""

import sys

from benchmarks.ports import harness

MODEL = sys.argv.pop(1) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else "mlp"
b = harness.budget(__doc__)

import numpy as np  # noqa: E402
import torch  # noqa: E402  (after the CPU budget: threads are fixed when torch loads)
import torch.nn.functional as F  # noqa: E402
from torch.utils.data import DataLoader, Dataset, TensorDataset  # noqa: E402

from frameworks.torch_native.optimizers import make_optimizer  # noqa: E402
from models.catalog import model_config  # noqa: E402

VALIDATES = model_config(MODEL).get("validate") is not False
LOG_INTERVAL = 10
TEST_BATCH_SIZE = 1000


class ShiftFlipDataset(Dataset):
    """Per-image random shift of up to `pad` pixels (edge repeated) and left-right flip."""

    def __init__(self, x: np.ndarray, y: np.ndarray, pad: int):
        self.x, self.y, self.pad = x, torch.from_numpy(y), pad

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int):
        h, w = self.x.shape[1:3]
        padded = np.pad(self.x[i], ((self.pad, self.pad), (self.pad, self.pad), (0, 0)), "edge")
        top, left = np.random.randint(0, 2 * self.pad + 1, size=2)
        img = padded[top : top + h, left : left + w]
        if np.random.rand() < 0.5:
            img = img[:, ::-1]
        return torch.from_numpy(np.ascontiguousarray(img)), self.y[i]


def loss_fn(output, target, cfg, reduction="mean"):
    weights = cfg.get("loss_weights")
    if weights:
        return sum(w * loss_fn(output[h], target, {}, reduction) for h, w in weights.items())
    if output.shape[-1] == 1:
        return F.binary_cross_entropy_with_logits(
            output.squeeze(-1), target.float(), reduction=reduction
        )
    return F.cross_entropy(output, target, reduction=reduction)


def train(model, train_loader, optimizer, schedule, cfg, clock):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        optimizer.zero_grad()
        output = model(data)
        loss = loss_fn(output, target, cfg)
        loss.backward()
        optimizer.step()
        if schedule is not None:
            schedule.step()  # Keras 2's per-step decay
        if batch_idx % LOG_INTERVAL == 0:
            loss.item()
        clock.tick()  # twinbench's pairs in turns only (harness.TurnClock); else nothing


def test(model, test_loader, cfg):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data)
            test_loss += loss_fn(output, target, cfg, reduction="sum").item()
            if isinstance(output, dict):
                output = output["main"]
            pred = (output > 0).long().squeeze(-1) if output.shape[-1] == 1 else output.argmax(1)
            correct += pred.eq(target.view_as(pred)).sum().item()
    return test_loss / len(test_loader.dataset), correct / len(test_loader.dataset)


def main():
    torch.set_num_threads(b.cpus)
    torch.set_num_interop_threads(b.interop_threads or b.cpus)
    torch.manual_seed(1)
    data, cfg = harness.arrays(MODEL, b)
    if cfg.get("augment"):
        pad = round(cfg["augment"]["width_shift"] * data.x_train.shape[2])
        dataset1 = ShiftFlipDataset(data.x_train, data.y_train, pad)
    else:
        dataset1 = TensorDataset(torch.from_numpy(data.x_train), torch.from_numpy(data.y_train))
    dataset2 = TensorDataset(torch.from_numpy(data.x_test), torch.from_numpy(data.y_test))
    train_loader = DataLoader(dataset1, batch_size=cfg["batch_size"], shuffle=True)
    test_loader = DataLoader(dataset2, batch_size=TEST_BATCH_SIZE)

    module = __import__(f"models.{MODEL}", fromlist=["torch_model"])
    model = module.torch_model(**cfg["arch"])
    optimizer, schedule = make_optimizer(model.parameters(), cfg["optimizer"])

    epoch_s = []
    clock = harness.TurnClock()
    clock.begin()
    for _ in range(b.epochs or cfg["epochs"]):
        clock.epoch_begin()
        train(model, train_loader, optimizer, schedule, cfg, clock)
        if VALIDATES:
            test(model, test_loader, cfg)
        epoch_s.append(clock.epoch_end())
    clock.end()
    harness.report(epoch_s, validates=VALIDATES)


if __name__ == "__main__":
    main()
