"""Runs bench/quality/real_models_inductor.py's rewriting and peers.py's counting on a
small hand-written Inductor wrapper with the forms the ViT and Whisper wrappers have: an
extern convolution returning its buffer (then reused by name), a generated kernel, and a
fallback returning a tuple whose first element the wrapper takes. Prints one line per
counted call (name, bytes) and the rewritten fallbacks; then the same wrapper without the
element's metadata, which must be refused."""

import sys
from pathlib import Path

repo = Path(sys.argv[1])
sys.path.insert(0, str(repo / "bench" / "quality"))
sys.path.insert(0, str(repo / "examples" / "onnx"))
import peers  # noqa: E402
import real_models_inductor as rmi  # noqa: E402

WRAPPER = '''
cpp_fused_gelu_0 = async_compile.cpp_pybinding(['float*'], r"""kernel""")

def call(args):
    arg0_1, arg1_1, arg2_1 = args
    args.clear()
    buf0 = extern_kernels.convolution(arg0_1, arg1_1, arg2_1, stride=(1,), padding=(1,))
    assert_tensor_metadata(buf0, (2, 32, 32), (1024, 32, 1), torch.float32, 'conv')
    buf1 = buf0; del buf0  # reuse
    cpp_fused_gelu_0(buf1)
    buf2 = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default(buf1, buf1, buf1, scale=0.5)
    buf3 = buf2[0]
    assert_tensor_metadata(buf3, (2, 32, 32), (1024, 32, 1), torch.float32, 'sdpa')
    del buf2
    return (buf3, )
'''
# input [2, 8, 32], weight [32, 8, 3], bias [32], all f32
INPUTS = [((2, 8, 32), "float32"), ((32, 8, 3), "float32"), ((32,), "float32")]

code, rewritten = rmi.fallbacks_as_out_calls(WRAPPER)
for kernel in peers.inductor_wrapper_kernels(code, INPUTS):
    print(f"kernel {kernel['name']} bytes {kernel['bytes']}")
print("rewritten", rewritten)
try:
    rmi.fallbacks_as_out_calls(WRAPPER.replace("assert_tensor_metadata(buf3", "check(buf3"))
except RuntimeError as e:
    print("refused:", e)
