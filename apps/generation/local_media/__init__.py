"""Pillow and PyAV media for the local engine: images, image edits and videos.

Everything here runs on the CPU without network access. A prompt is turned into a
``Scene`` (palette, background and a list of shapes) by hashing its words, so the same
prompt and seed always give the same picture and two different prompts give clearly
different pictures. Scenes are drawn at a reduced resolution and upscaled where the style
allows it (soft "photorealistic" renders), or drawn flat at full size ("illustration").

Videos are encoded with libx264 through PyAV. Frames are not drawn one by one: a canvas
larger than the frame is rendered once, converted to Y, Cb and Cr planes, and each frame is
a moving crop of those planes with a few pre-rendered sprites pasted on top, which keeps a
6 s 1080x1920 video within a few seconds on two cores.
"""

from .edits import edit_image
from .posts import make_post_image
from .scene import make_image
from .video import make_video

__all__ = ["edit_image", "make_image", "make_post_image", "make_video"]
