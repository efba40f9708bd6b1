"""Vision: tile detector (onnxruntime), layout parser, video."""
import os as _os

# OpenCV's own log and FFmpeg's stay quiet unless the user asks for them: a damaged video frame or an odd stream
# must not add lines to a command's stderr, which says one line per error (read before OpenCV is first used)
_os.environ.setdefault("OPENCV_LOG_LEVEL", "OFF")
_os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
