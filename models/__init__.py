"""The detector's ONNX models (the model card is models/README.md). An installed wheel carries the int8 models the
runtime loads and the view router; the float models to train from are in the repository."""
