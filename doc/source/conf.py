# Sphinx configuration of the reserve documentation.
#
#   pip install -r doc/requirements.txt
#   sphinx-build -W -b html doc/source doc/build/html

project = 'reserve'
copyright = 'The reserve developers'
extensions = []
master_doc = 'index'
source_suffix = '.rst'
exclude_patterns = []
pygments_style = 'sphinx'
html_theme = 'alabaster'
html_static_path = []
