// A fixture for Layers.CheckFindsAnUpwardInclude: decode/ may not include pipeline/.
#pragma once
#include "pipeline/stats.hpp"
