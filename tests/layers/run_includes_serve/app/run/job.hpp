// A fixture for Layers.CheckFindsRunIncludingServe: the single run (app/run/) may not include serve.
#pragma once
#include "app/serve/serve_config.hpp"
