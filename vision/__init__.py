"""Vision: tile detector (onnxruntime), layout parser, video."""
