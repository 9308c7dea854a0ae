#!/usr/bin/env python3
"""make-thumbnails.py — the Image tab's gallery thumbnails (web/images/thumbs/NAME.jpg): each demo photo of
web/images/ centre-cropped to a square and scaled to 128 x 128 (the buttons show 64 CSS px, sharp at 2x), JPEG
quality 85. A cold open of the Images tab fetched the ten full photos (2.9 MB) for 64-px buttons, beside the image
worker's own requests (issue 29); the thumbnails are ~5 KB each. The full photo is fetched when it is chosen.
Usage: /usr/bin/python3 scripts/make-thumbnails.py   (PIL; rerun when a demo photo changes)"""
import os
from PIL import Image

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'web', 'images')
PHOTOS = ['cat.png', 'bird.png', 'dragonfly.png', 'grace_hopper.png', 'sunflower.png', 'owl.jpg', 'parrot.jpg',
          'hot_dog.jpg', 'dog_segmentation.png', 'bird_segmentation.png']
SIZE = 128

os.makedirs(os.path.join(HERE, 'thumbs'), exist_ok=True)
for name in PHOTOS:
    im = Image.open(os.path.join(HERE, name)).convert('RGB')
    w, h = im.size
    s = min(w, h)
    im = im.crop(((w - s) // 2, (h - s) // 2, (w - s) // 2 + s, (h - s) // 2 + s)).resize((SIZE, SIZE), Image.LANCZOS)
    out = os.path.join(HERE, 'thumbs', os.path.splitext(name)[0] + '.jpg')
    im.save(out, 'JPEG', quality=85, optimize=True)
    print(out, os.path.getsize(out))
