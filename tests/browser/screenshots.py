"""Screenshots of the page, saved as test artefacts and checked for a
blank or broken render: an image of the window's size, not one colour
nearly everywhere, with the chart drawn (rows of some height) and no
broken image."""
import os

from PIL import Image

# A blank page (or one showing only an error) is white nearly
# everywhere; the chart's bars, rows and text are far from that.
MOST_COMMON_AT_MOST = 0.97
COLOURS_AT_LEAST = 16


def save_and_check(browser, folder, name, chart=True,
                   most_common_at_most=MOST_COMMON_AT_MOST):
    """chart: the chart must be drawn (False for the sign-in, where a
    nearly white page with its form is right)."""
    path = os.path.join(folder, name + '.png')
    assert browser.save_screenshot(path), path
    with Image.open(path) as image:
        image = image.convert('RGB')
        width, height = image.size
        size = browser.get_window_size()
        assert width >= size['width'] * 0.9 and height > 300, image.size
        colours = image.getcolors(maxcolors=width * height)
    total = sum(count for count, _ in colours)
    most = max(count for count, _ in colours)
    assert len(colours) >= COLOURS_AT_LEAST, (path, len(colours))
    assert most / total <= most_common_at_most, (path, most / total)
    if chart:
        drawn = browser.find_element('id', 'chart')
        assert drawn.size['height'] > 50, (path, drawn.size)
    broken = browser.execute_script(
        "return Array.from(document.images).filter("
        "i => !i.complete || i.naturalWidth === 0).length")
    assert broken == 0, path
    return path
