#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(){
  int n=1536, cols=768, nb=64; double *A=malloc(sizeof(double)*n*cols); int piv[64];
  for(long i=0;i<(long)n*cols;i++)A[i]=i;
  srand(1); for(int i=0;i<64;i++) piv[i]=rand()%n;
  double gaps[]={0,5,20,60,120,250}; int ng=6, reps=25;
  for(int g=0;g<ng;g++){
    double ts[64], tc[64];
    for(int r=0;r<reps;r++){
      volatile double s=0; for(long i=0;i<(long)n*cols;i+=8) s+=A[i];
      double t0=now(); while(now()-t0<gaps[g]*1e-3){}
      int blk=(r*7)%(cols/nb);
      double t1=now();
      for(int j=blk*nb;j<blk*nb+nb;j++){ double*c=A+(long)j*n; for(int i=0;i<64;i++){double x=c[i];c[i]=c[piv[i]];c[piv[i]]=x;} }
      ts[r]=now()-t1;
      int blk2=(blk+3)%(cols/nb);
      t1=now();
      double *c=A+(long)blk2*nb*n; for(long i=0;i<(long)n*nb;i++) c[i]=c[i]*1.0000001+1.0;
      tc[r]=now()-t1;
    }
    qsort(ts,reps,sizeof(double),cmp); qsort(tc,reps,sizeof(double),cmp);
    printf("gap %5.1f ms: swaps %.3f ms, contiguous 786KB update %.3f ms\n",gaps[g],ts[reps/2]*1e3,tc[reps/2]*1e3);
  }
}
