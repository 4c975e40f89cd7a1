"""Route 2 on BERT's embeddings: word rows by token id, position rows by position id
(read from a buffer), and token-type rows by a token type that is itself looked up in a
buffer at the position id (a lookup of a lookup), then a LayerNorm, one Inductor kernel.
The token types cycle 0, 1, 2 so that a wrong inner lookup shows. Prints the error
against eager at two shapes and the report."""

import sys

import torch

import autofuse.torch as aft


class Embeddings(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.word = torch.nn.Embedding(128, 16)
        self.position = torch.nn.Embedding(64, 16)
        self.token_type = torch.nn.Embedding(3, 16)
        self.norm = torch.nn.LayerNorm(16)
        self.register_buffer("position_ids", torch.arange(64)[None], persistent=False)
        self.register_buffer("token_type_ids", (torch.arange(64) % 3)[None], persistent=False)

    def forward(self, ids):
        b, s = ids.shape
        positions = self.position_ids[:, :s].expand(b, s)
        types = torch.gather(self.token_type_ids.expand(b, -1), 1, positions)
        return self.norm(self.word(ids) + self.position(positions) + self.token_type(types))


torch.manual_seed(0)
model = Embeddings().eval()
compiled = torch.compile(model, backend="autofuse-inductor", dynamic=True)
for b, s in [(2, 8), (3, 13)]:
    ids = torch.randint(0, 128, (b, s), generator=torch.Generator().manual_seed(b * 100 + s))
    with torch.no_grad():
        err = float((compiled(ids) - model(ids)).abs().max())
    print(f"b{b}s{s}: max error {err:.3e}: {'PASS' if err <= 1e-4 else 'FAIL'}")
sys.stdout.write(aft.report())
