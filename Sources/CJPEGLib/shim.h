#pragma once
#include <stdio.h>
#include <jpeglib.h>
