#pragma once
#include <stdio.h>
#include <turbojpeg.h>
